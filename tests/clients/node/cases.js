// node-postgres (pg) against one server: each case's result, or its error's
// SQLSTATE and message, printed as one JSON object so that
// tests/clients/test_node_postgres.py can compare sqlext with PostgreSQL 15.
// Usage: node cases.js HOST PORT USER DATABASE SCHEMA
"use strict";

const { Client } = require("pg");
const Cursor = require("pg-cursor");

const [host, port, user, database, schema] = process.argv.slice(2);
const settings = { host, port: Number(port), user, database };

// Values as JSON can show them: dates as ISO strings, buffers as hex.
function plain(value) {
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return "\\x" + value.toString("hex");
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

function described(result) {
  return {
    command: result.command,
    rowCount: result.rowCount,
    fields: result.fields.map((f) => [f.name, f.dataTypeID]),
    rows: plain(result.rows),
  };
}

const CASES = {
  async parameters(client) {
    const result = await client.query(
      "SELECT $1::int AS i, $2::bigint AS b, $3::numeric AS n, $4::float8 AS f, $5::text AS t, " +
        "$6::bool AS ok, $7::date AS d, $8::timestamptz AS tz, $9::bytea AS by, $10::uuid AS u, " +
        "$11::text AS nothing, $12::timestamp AS ts",
      [42, "9007199254740993", "12.340", 2.5, "it's \u00e9", true, "2024-02-29",
        new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678)), Buffer.from([0, 1, 255]),
        "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", null, "2024-01-02 03:04:05.5"],
    );
    return described(result);
  },

  async untypedParameters(client) {
    const result = await client.query("SELECT $1 AS a, $2 || 'x' AS b, 1 + $3 AS c", ["p", "q", 4]);
    return described(result);
  },

  async jsonb(client) {
    await client.query("CREATE TABLE docs (id int PRIMARY KEY, body jsonb, plain json)");
    const doc = { name: "n\u00e9", tags: ["a", "b"], nested: { n: 1.5, none: null, yes: true } };
    await client.query("INSERT INTO docs VALUES ($1, $2, $3)", [1, doc, JSON.stringify([1, "two"])]);
    const all = await client.query("SELECT * FROM docs");
    const path = await client.query(
      "SELECT body->'nested'->>'n' AS n, body #> '{tags,1}' AS tag, body @> $1 AS has, " +
        "jsonb_array_length(body->'tags') AS len FROM docs WHERE id = $2",
      [{ tags: ["a"] }, 1],
    );
    return [described(all), described(path)];
  },

  async arrays(client) {
    await client.query("CREATE TABLE arr (id int, ints int[], texts text[], floats float8[])");
    await client.query("INSERT INTO arr VALUES ($1, $2, $3, $4)",
      [1, [1, null, -3], ["a", "b,c", 'q"uote', null, ""], [1.5, -0.25]]);
    const all = await client.query("SELECT * FROM arr");
    const any = await client.query(
      "SELECT id, ints[1] AS first, array_length(texts, 1) AS n FROM arr WHERE $1 = ANY(ints)", [-3]);
    const literal = await client.query("SELECT ARRAY[1,2]::bigint[] AS big, '{}'::text[] AS empty");
    return [described(all), described(any), described(literal)];
  },

  async preparedStatements(client) {
    await client.query("CREATE TABLE items (id int PRIMARY KEY, name text, price numeric(8,2))");
    const insert = { name: "insert-item", text: "INSERT INTO items VALUES ($1, $2, $3) RETURNING id" };
    const results = [];
    for (const [id, name, price] of [[1, "one", "1.10"], [2, "two", "2"], [3, null, null]]) {
      results.push(described(await client.query({ ...insert, values: [id, name, price] })));
    }
    const select = { name: "items-over", text: "SELECT * FROM items WHERE price > $1 ORDER BY id" };
    results.push(described(await client.query({ ...select, values: ["1.5"] })));
    results.push(described(await client.query({ ...select, values: ["0"] })));
    const asArrays = await client.query({ ...select, values: ["0"], rowMode: "array" });
    results.push(plain(asArrays.rows));
    return results;
  },

  async transaction(client) {
    await client.query("CREATE TABLE accounts (id int PRIMARY KEY, balance int CHECK (balance >= 0))");
    await client.query("INSERT INTO accounts VALUES (1, 100), (2, 0)");
    await client.query("BEGIN");
    await client.query("UPDATE accounts SET balance = balance - 30 WHERE id = 1");
    await client.query("UPDATE accounts SET balance = balance + 30 WHERE id = 2");
    await client.query("COMMIT");
    const steps = [];
    await client.query("BEGIN");
    try {
      await client.query("UPDATE accounts SET balance = balance - 500 WHERE id = 1");
    } catch (error) {
      steps.push(error.code);
    }
    try {
      await client.query("SELECT 1");
    } catch (error) {
      steps.push(error.code);
    }
    await client.query("ROLLBACK");
    await client.query("BEGIN");
    await client.query("SAVEPOINT s");
    await client.query("DELETE FROM accounts");
    await client.query("ROLLBACK TO SAVEPOINT s");
    await client.query("COMMIT");
    steps.push(described(await client.query("SELECT * FROM accounts ORDER BY id")));
    return steps;
  },

  async errors(client) {
    const statements = [
      "SELECT * FROM no_such_table",
      "SELECT 'abc'::int",
      "SELECT 1/0",
      "SELEC 1",
      "CREATE TABLE dup (id int PRIMARY KEY)",
      "INSERT INTO dup VALUES (1), (1)",
    ];
    const seen = [];
    for (const text of statements) {
      try {
        await client.query(text);
        seen.push([text, "ok"]);
      } catch (error) {
        seen.push([text, error.code, error.severity, error.message, error.constraint ?? null,
          error.table ?? null]);
      }
    }
    // The connection stays usable after errors.
    seen.push(described(await client.query("SELECT 1 AS one")));
    return seen;
  },

  async cursor(client) {
    await client.query("CREATE TABLE series (n int, label text)");
    await client.query("INSERT INTO series SELECT g, 'row ' || g FROM generate_series(1, 25) AS g");
    const cursor = client.query(new Cursor("SELECT * FROM series WHERE n > $1 ORDER BY n", [3]));
    const batches = [];
    for (;;) {
      const rows = await cursor.read(10);
      batches.push(rows.length);
      if (rows.length === 0) break;
      batches.push(rows[0]);
    }
    await cursor.close();
    return batches;
  },

  async notifications(client) {
    const listener = new Client(settings);
    await listener.connect();
    const received = [];
    // One session's notifications arrive in order: "done" comes last.
    const all = new Promise((resolve) => {
      listener.on("notification", (message) => {
        received.push([message.channel, message.payload, message.processId === client.processID]);
        if (message.channel === "done") resolve();
      });
    });
    await listener.query('LISTEN jobs; LISTEN "Mixed Case"; LISTEN done');
    await client.query("NOTIFY jobs, 'first'");
    await client.query("SELECT pg_notify('Mixed Case', $1)", ["second"]);
    await client.query("BEGIN; NOTIFY jobs, 'third'; NOTIFY jobs, 'third'; NOTIFY unheard; COMMIT");
    await client.query("NOTIFY done");
    await all;
    await listener.end();
    return received;
  },

  async multipleStatements(client) {
    const results = await client.query("SELECT 1 AS a; SELECT 'x' AS b, 2 AS c");
    return results.map(described);
  },
};

async function main() {
  const client = new Client(settings);
  await client.connect();
  await client.query(`CREATE SCHEMA "${schema}"`);
  await client.query(`SET search_path TO "${schema}"`);
  const report = {};
  for (const [name, run] of Object.entries(CASES)) {
    try {
      report[name] = await run(client);
    } catch (error) {
      report[name] = { failed: error.code ?? null, message: error.message };
      await client.query("ROLLBACK").catch(() => {});
    }
  }
  await client.query(`DROP SCHEMA "${schema}" CASCADE`);
  await client.end();
  process.stdout.write(JSON.stringify(report));
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
