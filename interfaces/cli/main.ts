import { Command, InvalidArgumentError } from 'commander';
import { API_KEY_SCOPES, type ApiKeyScope } from '../../domain/accounts/account-events.js';
import { systemContextFor } from '../../application/shared/request-context.js';
import { DomainError } from '../../domain/shared/errors.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { createLogger } from '../../infrastructure/config/logger.js';
import { uuidV7Ids } from '../../infrastructure/system/clock-and-ids.js';
import { createRuntime, type Runtime } from '../composition-root.js';
import { registerAuditCommands } from './audit-commands.js';
import { batchSubmit } from './batch-submit.js';

const parseScopes = (value: string): ApiKeyScope[] => {
  const scopes = value.split(',').map((scope) => scope.trim()).filter(Boolean);
  const unknown = scopes.filter((scope) => !(API_KEY_SCOPES as readonly string[]).includes(scope));
  if (unknown.length > 0 || scopes.length === 0) {
    throw new InvalidArgumentError(`scopes must be a comma-separated subset of ${API_KEY_SCOPES.join(',')}`);
  }
  return scopes as ApiKeyScope[];
};

const parseCount = (value: string): number => {
  const count = Number(value);
  if (!Number.isInteger(count) || count < 0) throw new InvalidArgumentError('must be a non-negative integer');
  return count;
};

const parseSwitch = (value: string): boolean => {
  if (value === 'on' || value === 'off') return value === 'on';
  throw new InvalidArgumentError('must be on or off');
};

/** What the administration does for an organization is recorded as the system's. */
const adminContext = (orgId: string) => systemContextFor(orgId, uuidV7Ids.next());

/** Every command runs against the same database the service uses (DATABASE_URL, or the embedded one in DATA_DIR). */
const withRuntime = <Options>(action: (runtime: Runtime, options: Options) => Promise<void>) =>
  async (options: Options) => {
    const config = loadConfig();
    const runtime = await createRuntime(config, createLogger(process.env.LOG_LEVEL ?? 'warn'), { runProjections: true, rendering: 'off' });
    try {
      await action(runtime, options);
    } finally {
      await runtime.close();
    }
  };

const print = (value: unknown) => process.stdout.write(`${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}\n`);

const program = new Command('render-service').description('Administration of the rendering service');

const org = program.command('org').description('Organizations');
org
  .command('create')
  .requiredOption('--name <name>', 'organization name')
  .option('--credits <n>', 'credits of the plan per period', parseCount)
  .action(
    withRuntime(async (runtime, options: { name: string; credits?: number }) => {
      const orgId = await runtime.services.accounts.openOrganization(options);
      print({ orgId });
    }),
  );
org.command('list').action(
  withRuntime(async (runtime, _options: object) => {
    print(await runtime.services.accounts.listAccounts());
  }),
);

const key = program.command('key').description('API keys');
key
  .command('issue')
  .requiredOption('--org <orgId>', 'organization id')
  .option('--label <label>', 'what the key is for', 'cli')
  .option('--scopes <list>', `comma-separated: ${API_KEY_SCOPES.join(',')}`, parseScopes)
  .option('--test', 'a test key: its renders and captures are free, watermarked TEST and kept 24 h')
  .action(
    withRuntime(async (runtime, options: { org: string; label: string; scopes?: ApiKeyScope[]; test?: boolean }) => {
      const issued = await runtime.services.accounts.issueApiKey(options.org, { label: options.label, scopes: options.scopes, test: options.test === true });
      print({ ...issued, note: 'The key is shown only this once; only its hash is stored.' });
    }),
  );
key
  .command('list')
  .requiredOption('--org <orgId>', 'organization id')
  .action(
    withRuntime(async (runtime, options: { org: string }) => {
      const keys = await runtime.services.accounts.listKeys(options.org);
      print(keys.map(({ hash: _hash, ...visible }) => visible));
    }),
  );
key
  .command('revoke')
  .requiredOption('--org <orgId>', 'organization id')
  .requiredOption('--key <keyId>', 'key id (not the key itself)')
  .action(
    withRuntime(async (runtime, options: { org: string; key: string }) => {
      await runtime.services.accounts.revokeApiKey(options.org, options.key);
      print({ revoked: options.key });
    }),
  );

const webhookSecret = program.command('webhook-secret').description('The secret webhooks to an organization are signed with');
webhookSecret
  .command('show')
  .requiredOption('--org <orgId>', 'organization id')
  .action(
    withRuntime(async (runtime, options: { org: string }) => {
      print(await runtime.services.accounts.webhookSecret(options.org));
    }),
  );
webhookSecret
  .command('rotate')
  .requiredOption('--org <orgId>', 'organization id')
  .action(
    withRuntime(async (runtime, options: { org: string }) => {
      const rotated = await runtime.services.accounts.rotateWebhookSecret(options.org);
      print({ ...rotated, note: 'The previous secret keeps signing alongside this one for 24 hours.' });
    }),
  );

const signingKey = program.command('url-signing-key').description('Keys that sign GET /img URLs, so published image URLs carry no API key');
signingKey
  .command('create')
  .requiredOption('--org <orgId>', 'organization id')
  .action(
    withRuntime(async (runtime, options: { org: string }) => {
      const created = await runtime.services.urlSigning.createKey(adminContext(options.org));
      print({ ...created, note: 'The secret is shown only this once; the service keeps it encrypted.' });
    }),
  );
signingKey
  .command('list')
  .requiredOption('--org <orgId>', 'organization id')
  .action(
    withRuntime(async (runtime, options: { org: string }) => {
      print(await runtime.services.urlSigning.listKeys(adminContext(options.org)));
    }),
  );
signingKey
  .command('rotate')
  .requiredOption('--org <orgId>', 'organization id')
  .requiredOption('--key <identifier>', 'the key to give a new secret')
  .action(
    withRuntime(async (runtime, options: { org: string; key: string }) => {
      const rotated = await runtime.services.urlSigning.rotateKey(adminContext(options.org), options.key);
      print({ ...rotated, note: 'URLs signed with the previous secret no longer work. The secret is shown only this once.' });
    }),
  );
signingKey
  .command('revoke')
  .requiredOption('--org <orgId>', 'organization id')
  .requiredOption('--key <identifier>', 'the key whose URLs stop working')
  .action(
    withRuntime(async (runtime, options: { org: string; key: string }) => {
      await runtime.services.urlSigning.revokeKey(adminContext(options.org), options.key);
      print({ revoked: options.key });
    }),
  );

const settings = program.command('settings').description("An organization's settings");
settings
  .command('show')
  .requiredOption('--org <orgId>', 'organization id')
  .action(
    withRuntime(async (runtime, options: { org: string }) => {
      print(await runtime.services.settings.get(adminContext(options.org)));
    }),
  );
settings
  .command('set')
  .requiredOption('--org <orgId>', 'organization id')
  .option('--api-key-in-query <on|off>', 'whether GET /img takes the API key from its query string', parseSwitch)
  .action(
    withRuntime(async (runtime, options: { org: string; apiKeyInQuery?: boolean }) => {
      print(await runtime.services.settings.change(adminContext(options.org), { apiKeyInQuery: options.apiKeyInQuery }));
    }),
  );

const batch = program.command('batch').description('Batches, through the running service (its HTTP API), not the database');
batch
  .command('submit')
  .description('Upload a CSV as a batch of renders and print the answer; --wait follows it to its end, --zip saves its ZIP')
  .requiredOption('--template <id>', 'template id')
  .requiredOption('--csv <file>', 'the rows: a header row naming the merge fields (and optionally fileName), then one row per render')
  .option('--name <name>', "the batch's name (each result's batchName); generated when absent")
  .option('--output-format <format>', "the template's by default")
  .option('--template-version <n>', 'the template version every row draws', (value: string) => {
    const version = parseCount(value);
    if (version < 1) throw new InvalidArgumentError('must be a positive integer');
    return version;
  })
  .option('--no-cache', 'render every row, even one identical to an earlier render')
  .option('--webhook-url <url>', 'told batch.completed when the batch ends')
  .option('--merge', 'PDF batches: one merged PDF of every row too')
  .option('--wait', 'poll the batch every second, with progress on stderr, and print it once it has ended')
  .option('--zip <path>', 'once the batch has ended, save its ZIP (files and manifest.csv) here; implies --wait')
  .option('--no-progress', 'no progress bar while waiting')
  .option('--url <url>', 'the service (default: RENDER_SERVICE_URL, else http://127.0.0.1:3000)')
  .option('--key <key>', 'an API key (default: RENDER_API_KEY, which keeps it out of the process list)')
  .action(batchSubmit);

registerAuditCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  const message = error instanceof DomainError ? `${error.message}${error.details.length ? `: ${error.details.join('; ')}` : ''}` : String(error);
  process.stderr.write(`error: ${message}\n`);
  process.exitCode = 1;
}
