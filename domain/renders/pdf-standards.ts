/**
 * Archival standards a PDF render may be asked to meet (`pdfStandard`, an extension of the spec):
 * PDF/A-2b keeps the document's look reproducible for the long term (fonts embedded, colours
 * defined by an output intent, no scripts, metadata that says what it is).
 */
export const PDF_STANDARDS = ['PDF/A-2b'] as const;
export type PdfStandard = (typeof PDF_STANDARDS)[number];
