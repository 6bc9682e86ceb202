/** RFC 6266 with an ASCII fallback, so any file name survives the header. */
export const contentDisposition = (kind: 'inline' | 'attachment', fileName: string): string => {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
};
