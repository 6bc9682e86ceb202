/** The key lives in this tab's session storage only: never in a URL, gone when the tab closes. */
const STORAGE_KEY = 'render-studio.api-key';

export const storedApiKey = (): string | null => sessionStorage.getItem(STORAGE_KEY);
export const storeApiKey = (key: string): void => sessionStorage.setItem(STORAGE_KEY, key);
export const forgetApiKey = (): void => sessionStorage.removeItem(STORAGE_KEY);
