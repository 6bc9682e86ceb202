/** Long enough for any title; short enough that an unzipped path stays under Windows' 260-character limit. */
const MAX_NAME_LENGTH = 120;

/** C0 and C1 controls: invisible in a file manager, and a newline or escape in a name breaks listings and terminals. */
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/** Characters that Windows refuses in a file name (the separators are handled before these). */
const WINDOWS_RESERVED_CHARACTERS = /[<>:"|?*]/g;

/** Device names that Windows will not create as files, whatever extension follows them. */
const WINDOWS_DEVICE_NAMES = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

/** Windows drops leading spaces and trailing dots and spaces; a leading dot hides the file on macOS and Linux. */
const UNSTABLE_ENDS = /^[\s.]+|[\s.]+$/g;

/**
 * A wanted name made into one file name with no folders in it: each path segment is kept, `.` and
 * `..` are dropped, and the rest are joined, so `../../etc/passwd` becomes `etc_passwd`. Answers the
 * name without its extension, or an empty string when nothing usable is left.
 */
const safeStemOf = (wanted: string, extension: string): string => {
  const joined = wanted
    .normalize('NFC')
    .replace(CONTROL_CHARACTERS, '')
    .split(/[/\\]/)
    .filter((segment) => segment !== '.' && segment !== '..' && segment.trim() !== '')
    .join('_')
    .replace(WINDOWS_RESERVED_CHARACTERS, '_')
    .replace(/\.{2,}/g, '.');
  const withoutExtension = joined.toLowerCase().endsWith(`.${extension.toLowerCase()}`) ? joined.slice(0, -extension.length - 1) : joined;
  const stem = withoutExtension.replace(UNSTABLE_ENDS, '');
  const [device = ''] = stem.split('.');
  return WINDOWS_DEVICE_NAMES.test(device) ? `_${stem}` : stem;
};

/** Cut by code points, never inside a surrogate pair, leaving room for the copy number and the extension. */
const fileNameOf = (stem: string, copy: number, extension: string): string => {
  const copySuffix = copy === 1 ? '' : ` (${copy})`;
  const room = MAX_NAME_LENGTH - copySuffix.length - extension.length - 1;
  const cut = Array.from(stem).slice(0, room).join('').replace(UNSTABLE_ENDS, '');
  return `${cut}${copySuffix}.${extension}`;
};

/**
 * One safe file name per wanted name, in order, to put side by side in one folder or archive:
 * entry i is wanted[i] made safe, or `row-<i+1>` when there is no usable name, with `extension`
 * (`pdf` or `.pdf`) ending it. Names are unique ignoring case, as Windows and macOS compare them
 * when unzipping: a repeated name gets ` (2)`, ` (3)`, ... before its extension.
 */
export const uniqueFileNames = (wanted: readonly (string | null)[], extension: string): string[] => {
  const bareExtension = extension.replace(/^\./, '');
  const taken = new Set<string>();
  // Where to resume counting copies of a stem, so a name repeated n times costs n tries, not n².
  const nextCopyOf = new Map<string, number>();
  return wanted.map((name, index) => {
    const stem = safeStemOf(name ?? '', bareExtension) || `row-${index + 1}`;
    const stemKey = stem.toLowerCase();
    for (let copy = nextCopyOf.get(stemKey) ?? 1; ; copy += 1) {
      const candidate = fileNameOf(stem, copy, bareExtension);
      const key = candidate.toLowerCase();
      if (!taken.has(key)) {
        taken.add(key);
        nextCopyOf.set(stemKey, copy + 1);
        return candidate;
      }
    }
  });
};
