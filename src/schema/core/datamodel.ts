// The Prisma datamodel as plugin-prisma's generator wrote it, parsed once: the generated getDatamodel()
// parses its 200 KB of JSON on every call, and the typed filters check each of their columns against it
// while the schema is built (0.3 s of every process start).
import { getDatamodel } from "../../generated/pothos-types.ts";

export const DATAMODEL = getDatamodel();
