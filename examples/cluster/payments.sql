-- Per-account balances on a cluster of sqlext nodes (README: "A cluster").
--
-- Apply it to every node: sqlext run --cluster examples/cluster/cluster.toml \
--     examples/cluster/payments.sql
--
-- Accounts, payments and alerts are partitioned by account: each node keeps
-- the accounts it owns and gets exactly their payments (the Spark data
-- source's "cluster" option routes every row to its owner). Limits is
-- reference data, replicated: the same rows on every node.

CREATE TABLE limits (
    kind text PRIMARY KEY,
    max_amount numeric(12, 2) NOT NULL
);
INSERT INTO limits VALUES ('card', 2000), ('transfer', 10000), ('cash', 500);

CREATE TABLE accounts (
    id bigint PRIMARY KEY,
    balance numeric(14, 2) NOT NULL,
    payments int NOT NULL
) PARTITION BY HASH (id);

CREATE TABLE alerts (
    account bigint NOT NULL,
    amount numeric(12, 2) NOT NULL,
    kind text NOT NULL,
    batch bigint NOT NULL
) PARTITION BY HASH (account);

-- One batch per write: each runs apply_payments once, on the node that owns it.
CREATE STREAM payments (
    account bigint NOT NULL,
    amount numeric(12, 2) NOT NULL,
    kind text NOT NULL
) PARTITION BY HASH (account);

-- Everything it touches is keyed by the batch's accounts, so it never needs
-- another node's rows (sqlext checks that when the trigger is created).
CREATE PROCEDURE apply_payments() BEGIN ATOMIC
    INSERT INTO accounts (id, balance, payments)
        SELECT account, sum(amount), count(*) FROM payments GROUP BY account
    ON CONFLICT (id) DO UPDATE
        SET balance = accounts.balance + excluded.balance,
            payments = accounts.payments + excluded.payments;
    INSERT INTO alerts
        SELECT p.account, p.amount, p.kind, p.batch_id
        FROM payments p JOIN limits l ON l.kind = p.kind
        WHERE abs(p.amount) > l.max_amount;
END;

CREATE TRIGGER apply_payments AFTER INSERT ON payments EXECUTE PROCEDURE apply_payments();
