import { removeNetwork } from './network.js';

/** Namespaces, veths and the bridge an earlier run left (it was killed, or its teardown failed) go first; this run's go last, whatever the outcome. */
export default function setup(): () => void {
  removeNetwork();
  return removeNetwork;
}
