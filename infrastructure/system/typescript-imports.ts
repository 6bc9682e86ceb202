import { existsSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';

/*
 * Loaded with `node --import` before the service's own code (and by every thread and child process
 * it starts), so that Node runs the TypeScript sources as they are: Node strips their types itself,
 * and this maps the `.js` names the sources import one another by (TypeScript's "nodenext"
 * convention) to the `.ts` files beside them. A resolve hook in the importing thread costs a process
 * far less CPU at start than a transpiling loader (tsx) answering every import from a loader thread
 * of its own (docs/benchmarks.md, Other timings): the API, the workers, every CLI command and every
 * parsing thread start that way.
 *
 * The sources use only syntax Node can strip (tsconfig's erasableSyntaxOnly, checked by tsc).
 */
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier.endsWith('.js') && (specifier.startsWith('./') || specifier.startsWith('../')) && context.parentURL?.startsWith('file:')) {
      const typescript = new URL(`${specifier.slice(0, -'.js'.length)}.ts`, context.parentURL);
      if (existsSync(fileURLToPath(typescript))) return { url: typescript.href, format: 'module-typescript', shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
});
