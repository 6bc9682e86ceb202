/** Sends one webhook; throws when the receiver did not accept it, so the caller's retry policy applies. */
export interface WebhookSender {
  post(url: string, body: unknown): Promise<void>;
}
