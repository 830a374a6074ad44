-- Orders: a dataflow fed in batches (one per Spark task, see
-- examples/spark_pipeline.py). Each batch of orders is recorded, folded into
-- per-product sales, and its large orders flow on to per-customer alerts.
--
--   orders_in ──record_orders──▶ orders, product_sales
--                    │
--                    └─▶ large_orders ──flag_customers──▶ customer_alerts
--
-- orders_in names its batches itself (batch_column): a batch sent again, by a
-- retried Spark task or a re-run job, is recognised and skipped.
-- Load it with:  psql -h 127.0.0.1 -p 5499 -U postgres -f examples/orders/orders.sql

CREATE STREAM orders_in (
    batch      bigint NOT NULL,
    order_id   bigint NOT NULL,
    customer   integer NOT NULL,
    product    text NOT NULL,
    quantity   integer NOT NULL,
    unit_price numeric(10,2) NOT NULL,
    ordered_at timestamptz NOT NULL
) WITH (batch_column = 'batch');
CREATE STREAM large_orders (order_id bigint NOT NULL, customer integer NOT NULL,
                            amount numeric(12,2) NOT NULL);

CREATE TABLE orders (
    order_id   bigint PRIMARY KEY,
    batch      bigint NOT NULL,
    customer   integer NOT NULL,
    product    text NOT NULL,
    quantity   integer NOT NULL,
    amount     numeric(12,2) NOT NULL,
    ordered_at timestamptz NOT NULL
);
CREATE TABLE product_sales (
    product text PRIMARY KEY,
    orders  integer NOT NULL,
    units   integer NOT NULL,
    revenue numeric(14,2) NOT NULL
);
CREATE TABLE customer_alerts (
    customer     integer PRIMARY KEY,
    large_orders integer NOT NULL,
    largest      numeric(12,2) NOT NULL
);

CREATE PROCEDURE record_orders() BEGIN ATOMIC      -- orders_in means: this batch
    INSERT INTO orders
        SELECT order_id, batch, customer, product, quantity, quantity * unit_price, ordered_at
        FROM orders_in;
    INSERT INTO product_sales
        SELECT product, count(*), sum(quantity), sum(quantity * unit_price)
        FROM orders_in GROUP BY product
    ON CONFLICT (product) DO UPDATE SET orders = product_sales.orders + excluded.orders,
                                        units = product_sales.units + excluded.units,
                                        revenue = product_sales.revenue + excluded.revenue;
    INSERT INTO large_orders
        SELECT order_id, customer, quantity * unit_price FROM orders_in
        WHERE quantity * unit_price >= 500;
END;

CREATE PROCEDURE flag_customers() BEGIN ATOMIC
    INSERT INTO customer_alerts
        SELECT customer, count(*), max(amount) FROM large_orders GROUP BY customer
    ON CONFLICT (customer) DO UPDATE
        SET large_orders = customer_alerts.large_orders + excluded.large_orders,
            largest = greatest(customer_alerts.largest, excluded.largest);
END;

CREATE TRIGGER record_new_orders AFTER INSERT ON orders_in EXECUTE PROCEDURE record_orders();
CREATE TRIGGER flag_large_orders AFTER INSERT ON large_orders
    EXECUTE PROCEDURE flag_customers();
