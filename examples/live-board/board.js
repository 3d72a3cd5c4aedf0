// A live board of a key's open work orders (docs/live-board.md): list them once, then follow the
// workOrderEvents subscription over graphql-ws. The board remembers the id of the last event it
// applied; after a disconnect it subscribes again with `after: <that id>` and the server replays
// what was missed, so the table never drifts from the API. Served bundled (esbuild) by the service in
// development at /examples/live-board.
import { createClient } from "graphql-ws";

/** Statuses after which a work order leaves the board. */
const CLOSED = ["WorkReviewedAndCompleted", "PaymentMade", "CancelledWithReason", "Rejected"];
const ROW = "id title status locationId location { name } supplierFacilityId updatedAt";
const PAGE = 25;

const EVENTS = `subscription($after: String, $locationIds: [Int!], $statuses: [WorkOrderStatus!]) {
  workOrderEvents(after: $after, locationIds: $locationIds, statuses: $statuses) {
    id eventType workOrderId workOrder { ${ROW} }
  }
}`;

const $ = (id) => document.getElementById(id);

const board = {
  keys: null,
  client: null,
  /** The id of the last event applied (null: list again before following). */
  after: null,
  rows: new Map(),
  locations: new Map(),
  statuses: [],
  /** Bumped on every new connection, so a stale one's callbacks do nothing. */
  generation: 0,
  retries: 0,
};

function showState(text, kind) {
  $("state").textContent = text;
  $("state").dataset.kind = kind;
}

function filters() {
  const location = $("location").value;
  const status = $("status").value;
  return { locationIds: location ? [Number(location)] : null, statuses: status ? [status] : null };
}

/** Whether a work order belongs on the board with the current filters. */
function shows(wo) {
  const { locationIds, statuses } = filters();
  return (
    !CLOSED.includes(wo.status) &&
    (!locationIds || locationIds.includes(wo.locationId)) &&
    (!statuses || statuses.includes(wo.status))
  );
}

/** One query over the board's websocket (graphql-ws serves queries too). */
function query(client, text, variables = {}) {
  return new Promise((resolve, reject) => {
    let result;
    client.subscribe(
      { query: text, variables },
      {
        next: (r) => (result = r),
        error: reject,
        complete: () => (result?.errors ? reject(result.errors[0]) : resolve(result.data)),
      },
    );
  });
}

/** The head first, then the list: events between the two are replayed and applied again (harmless). */
async function list(client) {
  if (board.statuses.length === 0) {
    const data = await query(client, `{ __type(name: "WorkOrderStatus") { enumValues { name } } }`);
    board.statuses = data.__type.enumValues.map((v) => v.name).filter((s) => !CLOSED.includes(s));
    fillSelect(
      $("status"),
      board.statuses.map((s) => [s, s]),
    );
  }
  const head = (await query(client, "{ workOrderEventsHead }")).workOrderEventsHead;
  const { locationIds, statuses } = filters();
  const filter = { status: (statuses ?? board.statuses).join(",") };
  if (locationIds) filter.locationId = locationIds.join(",");
  const rows = new Map();
  for (let offset = 0; ; offset += PAGE) {
    const { workOrders } = await query(
      client,
      `query($offset: Int, $filter: JSON) { workOrders(limit: ${PAGE}, offset: $offset, filter: $filter) { count data { ${ROW} } } }`,
      { offset, filter },
    );
    for (const wo of workOrders.data) rows.set(wo.id, wo);
    if (offset + PAGE >= workOrders.count) break;
  }
  board.rows = rows;
  board.after = head;
  render();
}

/** Follows the events until the subscription ends; resolves or rejects with why. */
function follow(client, generation) {
  return new Promise((resolve, reject) => {
    client.subscribe(
      { query: EVENTS, variables: { after: board.after, ...filters() } },
      {
        next: ({ data, errors }) => {
          if (generation !== board.generation) return;
          if (errors) return reject(errors[0]);
          apply(data.workOrderEvents);
        },
        error: reject,
        complete: resolve,
      },
    );
  });
}

function apply(event) {
  board.after = event.id;
  const wo = event.workOrder;
  if (wo && shows(wo)) board.rows.set(wo.id, wo);
  else board.rows.delete(event.workOrderId);
  render(event.workOrderId);
}

function connect() {
  const generation = ++board.generation;
  board.client?.dispose();
  showState("connecting…", "connecting");
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/graphql`;
  const client = createClient({
    url,
    connectionParams: board.keys,
    lazy: false,
    retryAttempts: 0, // the board reconnects itself, resuming after the last event it applied
    on: {
      connected: () => {
        board.retries = 0;
        showState("live", "live");
      },
      closed: () => generation === board.generation && showState("disconnected, reconnecting…", "down"),
    },
  });
  board.client = client;
  (async () => {
    try {
      if (board.after === null) await list(client);
      await follow(client, generation);
    } catch (failure) {
      const error = Array.isArray(failure) ? failure[0] : failure; // a refused subscribe: its GraphQL errors
      const code = error?.extensions?.code;
      // Too slow: resume after the id the server names. Too old to replay: list again.
      if (code === "SubscriberTooSlowException") board.after = error.extensions.resumeAfter;
      if (code === "EventsExpiredException") board.after = null;
      if (code === "UnauthorizedException" || error?.code === 4403) return showState("key refused", "down");
    }
    if (generation !== board.generation) return;
    const delay = Math.min(10_000, 500 * 2 ** board.retries++);
    setTimeout(() => generation === board.generation && connect(), delay);
  })();
}

function fillSelect(select, options) {
  const chosen = select.value;
  select.replaceChildren(select.options[0]);
  for (const [value, label] of options) select.add(new Option(label, String(value)));
  select.value = chosen;
}

function cell(text) {
  const td = document.createElement("td");
  td.textContent = text ?? "";
  return td;
}

function render(changedId) {
  for (const wo of board.rows.values()) board.locations.set(wo.locationId, wo.location.name);
  fillSelect(
    $("location"),
    [...board.locations].sort((a, b) => a[1].localeCompare(b[1])),
  );
  const body = $("rows");
  body.replaceChildren(
    ...[...board.rows.values()]
      .sort((a, b) => b.id - a.id)
      .map((wo) => {
        const tr = document.createElement("tr");
        tr.dataset.id = String(wo.id);
        tr.dataset.status = wo.status;
        if (wo.id === changedId) tr.className = "changed";
        tr.append(
          cell(wo.id),
          cell(wo.title),
          cell(wo.location.name),
          cell(wo.status),
          cell(wo.supplierFacilityId),
          cell(new Date(wo.updatedAt).toLocaleString()),
        );
        return tr;
      }),
  );
  $("summary").textContent = `${board.rows.size} open work order${board.rows.size === 1 ? "" : "s"}`;
  $("last-event").textContent = board.after ?? "none";
}

function start(keys) {
  board.keys = keys;
  board.after = null;
  connect();
}

$("keys").addEventListener("submit", (event) => {
  event.preventDefault();
  const keys = { "X-API-KEY": $("api-key").value.trim(), "SVC-KEY": $("svc-key").value.trim() };
  sessionStorage.setItem("live-board-keys", JSON.stringify(keys));
  start(keys);
});

// Other filters: list again, then follow with the new ones (the server filters the events).
for (const id of ["location", "status"]) {
  $(id).addEventListener("change", () => board.keys && start(board.keys));
}

const saved = sessionStorage.getItem("live-board-keys");
if (saved) start(JSON.parse(saved));
