/** Tags as a person types them: comma-separated, trimmed, empty ones and repeats dropped. */
export const parseTags = (text: string): string[] => [...new Set(text.split(',').map((tag) => tag.trim()).filter(Boolean))];
