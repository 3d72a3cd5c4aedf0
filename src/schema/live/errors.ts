// The errors of live subscriptions, in the contract's form (type + status), each saying what to do.
import { ApiError } from "../core/errors.ts";

/** `after` names an event older than the replay window: the client re-syncs by listing. */
export const eventsExpired = (after: string, retentionHours: number) =>
  new ApiError(
    410,
    "EventsExpiredException",
    `event ${after} is older than the ${retentionHours} h of events kept for replay: re-sync by listing the work ` +
      "orders (workOrders, or GET …/work_order/work_orders), then subscribe with after: workOrderEventsHead read before listing",
  );

/** The subscriber did not read its messages fast enough; it resumes after the last one it got. */
export function subscriberTooSlow(resumeAfter: string, bufferLimit: number): ApiError {
  const error = new ApiError(
    429,
    "SubscriberTooSlowException",
    `more than ${bufferLimit} events waited for this subscription: it is ended; subscribe again with after: "${resumeAfter}"`,
  );
  // The id to resume from, for a client to read without parsing the message.
  Object.assign(error.extensions, { resumeAfter });
  return error;
}

/** Thrown: a subscription beyond the key's limit is refused. */
export function tooManySubscriptions(limit: number): never {
  throw new ApiError(
    429,
    "TooManyRequestsException",
    `this key already has ${limit} live subscriptions on this server (LIVE_MAX_SUBSCRIPTIONS_PER_KEY)`,
  );
}
