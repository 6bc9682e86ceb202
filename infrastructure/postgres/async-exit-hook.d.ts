declare module 'async-exit-hook' {
  interface AsyncExitHook {
    (hook: (done: () => void) => void): void;
    unhookEvent(event: string): void;
    hookedEvents(): string[];
  }
  const asyncExitHook: AsyncExitHook;
  export default asyncExitHook;
}
