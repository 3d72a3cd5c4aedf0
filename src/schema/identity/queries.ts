import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { MeRef } from "./types.ts";
import { me } from "./rules.ts";

builder.queryField("ping", (t) =>
  t.string({
    ...restRoute({
      interfaces: ["buyer", "partners"],
      method: "GET",
      path: "/ping",
      type: "pingpong",
      rateLimited: false,
    }),
    description: "Verifies both key headers; not rate limited.",
    resolve: () => "pong",
  }),
);

builder.queryField("me", (t) =>
  t.field({
    ...restRoute({ interfaces: ["buyer"], method: "GET", path: "/me", type: "Me" }),
    description:
      "Who the key is: its contact (email, name, contact type) and the tenant it acts for (facility and company).",
    type: MeRef,
    resolve: (_root, _args, ctx) => me(ctx),
  }),
);
