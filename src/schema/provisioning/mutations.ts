// POST /v1/buyer/user/provision and GraphQL `provisionUser`: creates a buyer contact and sends the invite.
import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { requires } from "../core/permissions.ts";
import { ProvisionedContactRef, ProvisionUserInput } from "./types.ts";
import { provisionUser } from "./rules.ts";

builder.mutationField("provisionUser", (t) =>
  t.field({
    ...restRoute(
      {
        interfaces: ["buyer"],
        method: "POST",
        path: "/user/provision",
        type: "Contact",
        bodyArg: "input",
        errors: { "403": "An admin or super-admin role, or a facility of another buyer company" },
      },
      requires("user.provision"),
    ),
    description:
      "Provisions a user (contact) of the key's buyer company with roles and facilities, and sends the invite mail.",
    type: ProvisionedContactRef,
    args: { input: t.arg({ type: ProvisionUserInput, required: true, description: "The user to provision" }) },
    resolve: (_root, { input }, ctx) => provisionUser(ctx, input),
  }),
);
