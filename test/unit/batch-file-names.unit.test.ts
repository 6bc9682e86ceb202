import { describe, expect, it } from 'vitest';
import { uniqueFileNames } from '../../application/batches/file-names.js';

describe('batch file names', () => {
  it('keeps a safe wanted name and appends the extension when it is missing', () => {
    expect(uniqueFileNames(['Invoice 42', 'summary.PDF', 'été 2026'], 'pdf')).toEqual(['Invoice 42.pdf', 'summary.pdf', 'été 2026.pdf']);
  });

  it('takes the extension with or without its dot', () => {
    expect(uniqueFileNames(['a'], '.png')).toEqual(['a.png']);
  });

  it('names a row with no usable name after its position', () => {
    expect(uniqueFileNames([null, '', '  ', '../..', 'kept', '\u0000\u001b'], 'png')).toEqual(['row-1.png', 'row-2.png', 'row-3.png', 'row-4.png', 'kept.png', 'row-6.png']);
  });

  it('puts no folder in a name: path segments are joined, `.` and `..` dropped', () => {
    expect(uniqueFileNames(['../../etc/passwd', 'a/b\\c', '/abs/path', 'C:\\Windows\\win.ini', './x/./y'], 'png')).toEqual([
      'etc_passwd.png',
      'a_b_c.png',
      'abs_path.png',
      'C__Windows_win.ini.png',
      'x_y.png',
    ]);
  });

  it('leaves no `..`, no control character and nothing Windows refuses', () => {
    const [dots, controls, reserved, device, hidden] = uniqueFileNames(['a..b...c', 'new\nline\ttab\u0085', 'what? <this>: "that"|*', 'con.backup', '.env'], 'png');
    expect(dots).toBe('a.b.c.png');
    expect(controls).toBe('newlinetab.png');
    expect(reserved).toBe('what_ _this__ _that___.png');
    expect(device).toBe('_con.backup.png');
    expect(hidden).toBe('env.png');
  });

  it('cuts a long name to 120 characters with its extension, never inside a character', () => {
    const [latin, emoji] = uniqueFileNames(['x'.repeat(500), '😀'.repeat(200)], 'pdf');
    expect(latin).toBe(`${'x'.repeat(116)}.pdf`);
    expect(Array.from(emoji ?? '')).toHaveLength(120);
    expect(emoji).toBe(`${'😀'.repeat(116)}.pdf`);
  });

  it('numbers repeated names before the extension, ignoring case', () => {
    expect(uniqueFileNames(['Report', 'report', 'REPORT.pdf', 'other', 'Report (2)'], 'pdf')).toEqual([
      'Report.pdf',
      'report (2).pdf',
      'REPORT (3).pdf',
      'other.pdf',
      'Report (2) (2).pdf',
    ]);
  });

  it('keeps a numbered long name within 120 characters', () => {
    const names = uniqueFileNames(['y'.repeat(300), 'y'.repeat(300)], 'pdf');
    expect(names[1]).toBe(`${'y'.repeat(112)} (2).pdf`);
    expect(names.every((name) => name.length <= 120)).toBe(true);
  });

  it('gives 500 identical names 500 distinct ones', () => {
    const names = uniqueFileNames(Array.from({ length: 500 }, () => 'same'), 'png');
    expect(new Set(names.map((name) => name.toLowerCase())).size).toBe(500);
    expect(names.slice(0, 3)).toEqual(['same.png', 'same (2).png', 'same (3).png']);
    expect(names.at(-1)).toBe('same (500).png');
  });

  it('does not reuse a fallback name that a row asked for', () => {
    expect(uniqueFileNames(['row-2', null], 'png')).toEqual(['row-2.png', 'row-2 (2).png']);
  });
});
