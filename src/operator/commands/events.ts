// `operator events explain`.
import { explainWorkOrderEvents } from "../../schema/webhooks/public.ts";
import { int, type Command } from "../command.ts";

export const eventCommands: Command[] = [
  {
    name: "events explain",
    usage: "<workOrderId>",
    args: ["workOrderId"],
    help: `Explains a work order's events: for each, whom the recipients rules addressed (the webhook
endpoints and live subscribers of those tenants), which endpoints received which message (with the
delivery's status), and which endpoints were skipped and why. See docs/events.md.`,
    run: ({ args: [id], db }) => explainWorkOrderEvents(db(), int(id, "workOrderId")!),
  },
];
