export interface WebhookRequest {
  readonly url: string;
  /** The exact bytes that were signed: sent as they are. */
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** How one attempt went; a receiver's refusal is an answer, not an exception. */
export type WebhookResponse =
  | { readonly ok: true; readonly statusCode: number }
  /** `statusCode` null: no answer at all (refused, timed out, reset). */
  | { readonly ok: false; readonly statusCode: number | null; readonly error: string };

/** POSTs one webhook attempt; only a 2xx answer is a delivery. */
export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResponse>;
}

/** Fresh webhook signing secrets, unguessable. */
export interface WebhookSecretGenerator {
  generate(): string;
}
