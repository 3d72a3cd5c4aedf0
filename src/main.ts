// Entry point of `npm start` (api and workers), `npm run api` and `npm run worker`.
import { loadConfig } from "./config.ts";
import { startApp } from "./app.ts";

const config = loadConfig();
const app = await startApp(config);

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    app.services.logger.info({ signal }, "shutting down");
    await app.close();
    process.exit(0);
  });
}
