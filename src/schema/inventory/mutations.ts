// Writes of the team's catalogs (POST creates, PATCH /{id} changes the sent fields) and consumed parts.
import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { requires } from "../core/permissions.ts";
import {
  EquipmentTypeInput,
  EquipmentTypeRef,
  PartInput,
  PartRef,
  StockLocationInput,
  StockLocationRef,
  VendorInput,
  VendorRef,
  WorkOrderPartInput,
  WorkOrderPartRef,
} from "./types.ts";
import {
  createInCatalog,
  EQUIPMENT_TYPES,
  PARTS,
  updateInCatalog,
  VENDORS,
  writeStockLocation,
  type Catalog,
} from "./rules/catalogs.ts";
import { recordWorkOrderPart } from "./rules/work-order-parts.ts";

interface CatalogWrites {
  catalog: Catalog;
  path: string;
  type: string;
  /** Root field names: POST creates, PATCH /:id updates. */
  fields: { create: string; update: string };
  ref: any;
  input: any;
  permission: "inventory.write" | "purchasing.write";
}

function catalogWrites(w: CatalogWrites) {
  builder.mutationField(w.fields.create, (t) =>
    t.prismaField({
      ...restRoute(
        { interfaces: ["partners"], method: "POST", path: w.path, type: w.type, bodyArg: "input" },
        requires(w.permission),
      ),
      description: `Creates a ${w.catalog.noun} of the key's team.`,
      type: w.ref,
      args: { input: t.arg({ type: w.input, required: true, description: `The ${w.catalog.noun} to create` }) },
      resolve: (query, _root, { input }, ctx) =>
        createInCatalog(ctx, w.catalog, input as Record<string, unknown>, query),
    }),
  );
  builder.mutationField(w.fields.update, (t) =>
    t.prismaField({
      ...restRoute(
        { interfaces: ["partners"], method: "PATCH", path: `${w.path}/:id`, type: w.type, bodyArg: "input" },
        requires(w.permission, { noun: w.catalog.noun, id: (args) => args.id }),
      ),
      description: `Changes the sent fields of a ${w.catalog.noun} (absent keeps, null clears).`,
      type: w.ref,
      args: {
        id: t.arg.int({ required: true, description: `Id of the ${w.catalog.noun} to change` }),
        input: t.arg({
          type: w.input,
          required: true,
          description: `The fields of the ${w.catalog.noun} to change (absent keeps, null clears)`,
        }),
      },
      resolve: (query, _root, { id, input }, ctx) =>
        updateInCatalog(ctx, w.catalog, id, input as Record<string, unknown>, query),
    }),
  );
}

catalogWrites({
  catalog: VENDORS,
  path: "/purchasing/vendors",
  type: "Vendor",
  fields: { create: "createVendor", update: "updateVendor" },
  ref: VendorRef,
  input: VendorInput,
  permission: "purchasing.write",
});
catalogWrites({
  catalog: PARTS,
  path: "/inventory/parts",
  type: "Part",
  fields: { create: "createPart", update: "updatePart" },
  ref: PartRef,
  input: PartInput,
  permission: "inventory.write",
});
catalogWrites({
  catalog: EQUIPMENT_TYPES,
  path: "/inventory/equipment_types",
  type: "EquipmentType",
  fields: { create: "createEquipmentType", update: "updateEquipmentType" },
  ref: EquipmentTypeRef,
  input: EquipmentTypeInput,
  permission: "inventory.write",
});

builder.mutationField("createStockLocation", (t) =>
  t.prismaField({
    ...restRoute(
      {
        interfaces: ["partners"],
        method: "POST",
        path: "/inventory/stock_locations",
        type: "StockLocation",
        bodyArg: "input",
      },
      requires("inventory.write"),
    ),
    description: "Creates a stock location of the key's team; `onHand` records its initial stock count.",
    type: StockLocationRef,
    args: {
      input: t.arg({
        type: StockLocationInput,
        required: true,
        description: "The stock location to create, with an optional stock count",
      }),
    },
    resolve: (query, _root, { input }, ctx) => writeStockLocation(ctx, null, input, query),
  }),
);

builder.mutationField("updateStockLocation", (t) =>
  t.prismaField({
    ...restRoute(
      {
        interfaces: ["partners"],
        method: "PATCH",
        path: "/inventory/stock_locations/:id",
        type: "StockLocation",
        bodyArg: "input",
      },
      requires("inventory.write", { noun: "stock location", id: (args) => args.id }),
    ),
    description:
      "Changes the sent fields of a stock location; `onHand` is a stock count that sets the named parts' on-hand.",
    type: StockLocationRef,
    args: {
      id: t.arg.int({ required: true, description: "The stock location's id" }),
      input: t.arg({
        type: StockLocationInput,
        required: true,
        description: "The fields to change, with an optional stock count",
      }),
    },
    resolve: (query, _root, { id, input }, ctx) => writeStockLocation(ctx, id, input, query),
  }),
);

builder.mutationField("recordWorkOrderPart", (t) =>
  t.prismaField({
    ...restRoute(
      {
        interfaces: ["partners"],
        method: "POST",
        path: "/inventory/work_order_parts",
        type: "WorkOrderPart",
        bodyArg: "input",
      },
      requires("inventory.write"),
    ),
    description:
      "Records a part taken from stock for a work order the team serves (lowers on-hand; a negative quantity returns parts to stock).",
    type: WorkOrderPartRef,
    args: {
      input: t.arg({
        type: WorkOrderPartInput,
        required: true,
        description: "The work order, part, stock location and quantity",
      }),
    },
    resolve: (query, _root, { input }, ctx) => recordWorkOrderPart(ctx, input, query),
  }),
);
