/** The benchmark's document: an A4 report in the html-editor that prints as exactly REPORT_PAGES pages. */
export const REPORT_PAGES = 50;
/** A4 at 96 CSS pixels per inch: the template's size, which the report's own @page size confirms. */
export const REPORT_WIDTH = 794;
export const REPORT_HEIGHT = 1123;

const ROWS = Array.from({ length: 12 }, (_, row) => `<tr><td>Line {{section}}.${row + 1}</td><td>Widget, blue, large</td><td class="n">${(row + 1) * 7}.00</td></tr>`).join('');

/** One section per page: a heading (an outline entry), prose, a table and a link; each section ends its page. */
export const REPORT_HTML = Array.from(
  { length: REPORT_PAGES },
  (_, index) => `<section>
  <h2>Section ${index + 1} of {{title}}</h2>
  <p>Figures for the period, collected from every region and checked twice. The totals below are rounded to the cent; see <a href="https://example.com/notes/${index + 1}">the notes</a> for the method.</p>
  <table><thead><tr><th>Line</th><th>Item</th><th class="n">Amount</th></tr></thead><tbody>${ROWS.replaceAll('{{section}}', String(index + 1))}</tbody></table>
  <p>Nothing unusual was found in this section; the next one continues on a new page.</p>
</section>`,
).join('\n');

export const REPORT_CSS = `
@page { size: A4; margin: 18mm 16mm 20mm; @bottom-center { content: "Page " counter(page) " of " counter(pages); font: 9pt "DejaVu Sans"; } }
body { font: 10.5pt/1.45 "Open Sans", "DejaVu Sans", sans-serif; color: #1a1a1a; }
section { break-after: page; }
h2 { font: 700 16pt "Lato", sans-serif; color: #1f3a68; margin: 0 0 4mm; }
table { width: 100%; border-collapse: collapse; margin: 4mm 0; }
th { background: #1f3a68; color: #fff; text-align: left; }
th, td { padding: 1.5mm 2mm; border-bottom: .3mm solid #d0d4e0; }
.n { text-align: right; }
`;
