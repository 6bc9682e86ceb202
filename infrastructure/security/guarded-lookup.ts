import net, { type LookupFunction } from 'node:net';

/**
 * A DNS lookup for outgoing connections that resolves through the private-address guard, so the
 * connection goes to the address that was checked: a second DNS answer (rebinding) cannot point it
 * at an internal host.
 */
export const guardedLookup =
  (allowedAddress: (host: string) => Promise<string>): LookupFunction =>
  (hostname, options, callback) => {
    allowedAddress(hostname).then(
      (address) => {
        const family = net.isIP(address);
        // With `all`, Node's callback takes a list; its type only names the single-address form.
        if (options.all) (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, [{ address, family }]);
        else callback(null, address, family);
      },
      (error: Error) => callback(error, '', 0),
    );
  };
