// Masking of buyer-private fields, declared once per type:
//   builder.prismaObject("Location", { extensions: masked({ thirdParty: ["internalCode"] }), ... })
// and enforced here for every schema we serve (GraphQL and each REST cut), so a resolver cannot forget it.
// Masked fields stay in the response with the value null (docs/decisions.md#masking).
import { defaultFieldResolver, isNonNullType, isObjectType, type GraphQLSchema } from "graphql";
import type { Context } from "./context.ts";

export interface MaskDeclaration {
  /** Null for supplier keys of third-party companies. */
  thirdParty?: readonly string[];
  /** Null for every supplier-side key (internal teams included). */
  supplier?: readonly string[];
}

export const masked = (declaration: MaskDeclaration) => ({ masked: declaration });

function hides(declaration: MaskDeclaration, field: string, ctx: Context): boolean {
  const v = ctx.viewer;
  if (v.kind === "buyer") return false;
  if (declaration.supplier?.includes(field)) return true;
  return v.isThirdParty && (declaration.thirdParty?.includes(field) ?? false);
}

/** `complete`: the full schema, where every declared field must exist (a typo must not silently unmask). */
export function applyMasking(schema: GraphQLSchema, complete: boolean): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type)) continue;
    const declaration = type.extensions?.masked as MaskDeclaration | undefined;
    if (!declaration) continue;
    const fields = type.getFields();
    for (const name of [...(declaration.thirdParty ?? []), ...(declaration.supplier ?? [])]) {
      const field = fields[name];
      if (!field) {
        if (complete) throw new Error(`${type.name} masks ${name}, which it does not have`);
        continue; // not part of this cut
      }
      if (isNonNullType(field.type)) throw new Error(`${type.name}.${name} is masked and must be nullable`);
      if ((field as { masking?: true }).masking) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (parent, args, ctx: Context, info) =>
        hides(declaration, name, ctx) ? null : resolve(parent, args, ctx, info);
      Object.assign(field, { masking: true });
    }
  }
}
