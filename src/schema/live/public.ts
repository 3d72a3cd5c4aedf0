// What the relay and the HTTP server use of live events: the stream's numbering (the relay numbers
// what it publishes) and one instance's live side with its settings.
export { addressedSuppliers, numberRound, SUBSCRIPTION_CHANNEL, type LiveMessage } from "./stream.ts";
export { createLiveEvents, perKeyLimit, type EventServices, type LiveSettings } from "./tail.ts";
// The GraphQL server's subscribe: one execution per event and answer class, each result with its event id.
export { subscribeSharingAnswers } from "./shared-answers.ts";
