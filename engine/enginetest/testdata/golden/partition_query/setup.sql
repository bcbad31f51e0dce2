CREATE TABLE raw_orders (order_id BIGINT, created_at TIMESTAMP, status VARCHAR(20), amount DECIMAL(12,2));
INSERT INTO raw_orders VALUES (1, TIMESTAMP '2026-11-28 08:00:00', 'placed', 20.50), (2, TIMESTAMP '2026-11-29 08:00:00', 'placed', 1.50);
