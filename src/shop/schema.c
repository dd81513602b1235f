/*
 * schema.c — the shop's DDL, in pg_dump's order: types, tables with their NOT
 * NULL and CHECK constraints, the trigger function and comments first
 * ("pre-data"); keys, foreign keys, indexes and triggers after the rows are in
 * ("post-data"), which is what makes a bulk load fast.
 *
 * Statements name objects bare: the caller sets search_path to the target
 * schema. Olist's column names are kept (spelling fixed: "lenght" → "length"),
 * so people who know the data set recognise them.
 */
#include "shop/shop_int.h"

#include <stddef.h>

const char *const shop_schema_pre[] = {
	"CREATE TYPE order_status AS ENUM ('created', 'approved', 'invoiced', 'processing', 'shipped', "
	"'delivered', 'canceled', 'unavailable')",
	"COMMENT ON TYPE order_status IS 'Where an order is in its life, from checkout to delivery.'",

	"CREATE FUNCTION set_updated_at() RETURNS trigger LANGUAGE plpgsql AS "
	"$$BEGIN NEW.updated_at := now(); RETURN NEW; END$$",
	"COMMENT ON FUNCTION set_updated_at() IS 'Stamps updated_at on every row update (the watermark).'",

	"CREATE TABLE product_categories ("
	" product_category_name varchar(64) NOT NULL,"
	" product_category_name_english varchar(64) NOT NULL)",
	"COMMENT ON TABLE product_categories IS 'Product categories, named in Portuguese with their English translation.'",
	"COMMENT ON COLUMN product_categories.product_category_name IS 'Category name (Portuguese, snake_case).'",
	"COMMENT ON COLUMN product_categories.product_category_name_english IS 'Category name in English.'",

	"CREATE TABLE geolocation ("
	" geolocation_zip_code_prefix integer NOT NULL,"
	" geolocation_lat double precision NOT NULL CHECK (geolocation_lat BETWEEN -90 AND 90),"
	" geolocation_lng double precision NOT NULL CHECK (geolocation_lng BETWEEN -180 AND 180),"
	" geolocation_city varchar(64) NOT NULL,"
	" geolocation_state char(2) NOT NULL)",
	"COMMENT ON TABLE geolocation IS 'Brazilian postal code (CEP) prefixes with a representative location.'",
	"COMMENT ON COLUMN geolocation.geolocation_zip_code_prefix IS 'First five digits of the CEP.'",
	"COMMENT ON COLUMN geolocation.geolocation_lat IS 'Latitude in degrees (WGS 84).'",
	"COMMENT ON COLUMN geolocation.geolocation_lng IS 'Longitude in degrees (WGS 84).'",
	"COMMENT ON COLUMN geolocation.geolocation_city IS 'City name, lower case.'",
	"COMMENT ON COLUMN geolocation.geolocation_state IS 'State code (UF), e.g. SP.'",

	"CREATE TABLE sellers ("
	" seller_id uuid NOT NULL,"
	" seller_zip_code_prefix integer NOT NULL,"
	" seller_city varchar(64) NOT NULL,"
	" seller_state char(2) NOT NULL,"
	" seller_active boolean NOT NULL DEFAULT true,"
	" seller_joined_on date NOT NULL)",
	"COMMENT ON TABLE sellers IS 'Merchants selling through the marketplace.'",
	"COMMENT ON COLUMN sellers.seller_id IS 'Seller identifier.'",
	"COMMENT ON COLUMN sellers.seller_zip_code_prefix IS 'CEP prefix of the seller''s address.'",
	"COMMENT ON COLUMN sellers.seller_city IS 'City of the seller.'",
	"COMMENT ON COLUMN sellers.seller_state IS 'State code (UF) of the seller.'",
	"COMMENT ON COLUMN sellers.seller_active IS 'Whether the seller may list products now.'",
	"COMMENT ON COLUMN sellers.seller_joined_on IS 'Day the seller joined the marketplace.'",

	"CREATE TABLE products ("
	" product_id uuid NOT NULL,"
	" product_category_name varchar(64),"
	" product_name_length smallint CHECK (product_name_length > 0),"
	" product_description_length integer CHECK (product_description_length > 0),"
	" product_photos_qty smallint CHECK (product_photos_qty >= 0),"
	" product_weight_g integer CHECK (product_weight_g >= 0),"
	" product_length_cm smallint CHECK (product_length_cm > 0),"
	" product_height_cm smallint CHECK (product_height_cm > 0),"
	" product_width_cm smallint CHECK (product_width_cm > 0),"
	" product_attributes jsonb NOT NULL DEFAULT '{}',"
	" product_tags text[] NOT NULL DEFAULT '{}',"
	" product_image_hash bytea)",
	"COMMENT ON TABLE products IS 'The catalogue: one row per product, whoever sells it.'",
	"COMMENT ON COLUMN products.product_id IS 'Product identifier.'",
	"COMMENT ON COLUMN products.product_category_name IS 'Category; NULL for products never categorised.'",
	"COMMENT ON COLUMN products.product_name_length IS 'Characters in the product''s name.'",
	"COMMENT ON COLUMN products.product_description_length IS 'Characters in the product''s description.'",
	"COMMENT ON COLUMN products.product_photos_qty IS 'Photos published for the product.'",
	"COMMENT ON COLUMN products.product_weight_g IS 'Shipping weight in grams.'",
	"COMMENT ON COLUMN products.product_length_cm IS 'Package length in centimetres.'",
	"COMMENT ON COLUMN products.product_height_cm IS 'Package height in centimetres.'",
	"COMMENT ON COLUMN products.product_width_cm IS 'Package width in centimetres.'",
	"COMMENT ON COLUMN products.product_attributes IS 'Category-specific attributes (brand, color, size, voltage…).'",
	"COMMENT ON COLUMN products.product_tags IS 'Merchandising tags.'",
	"COMMENT ON COLUMN products.product_image_hash IS '64-bit perceptual hash of the main photo.'",

	"CREATE TABLE customers ("
	" customer_id uuid NOT NULL,"
	" customer_unique_id uuid NOT NULL,"
	" customer_zip_code_prefix integer NOT NULL,"
	" customer_city varchar(64) NOT NULL,"
	" customer_state char(2) NOT NULL,"
	" customer_email varchar(254) NOT NULL)",
	"COMMENT ON TABLE customers IS 'One row per order''s customer record; the same person may have several "
	"(customer_unique_id). No watermark column.'",
	"COMMENT ON COLUMN customers.customer_id IS 'Customer record of one order.'",
	"COMMENT ON COLUMN customers.customer_unique_id IS 'The person behind the record; shared by a returning customer''s records.'",
	"COMMENT ON COLUMN customers.customer_zip_code_prefix IS 'CEP prefix of the delivery address.'",
	"COMMENT ON COLUMN customers.customer_city IS 'City of the delivery address.'",
	"COMMENT ON COLUMN customers.customer_state IS 'State code (UF) of the delivery address.'",
	"COMMENT ON COLUMN customers.customer_email IS 'E-mail address (personal data; example domains only).'",

	"CREATE TABLE orders ("
	" order_id uuid NOT NULL,"
	" order_number bigint GENERATED BY DEFAULT AS IDENTITY,"
	" customer_id uuid NOT NULL,"
	" order_status order_status NOT NULL DEFAULT 'created',"
	" order_purchase_timestamp timestamp NOT NULL,"
	" order_approved_at timestamp,"
	" order_delivered_carrier_date timestamp,"
	" order_delivered_customer_date timestamp,"
	" order_estimated_delivery_date date NOT NULL,"
	" updated_at timestamptz NOT NULL DEFAULT now(),"
	" CONSTRAINT orders_approved_after_purchase CHECK (order_approved_at >= order_purchase_timestamp))",
	"COMMENT ON TABLE orders IS 'Orders placed on the marketplace. Watermark: updated_at, kept by a trigger.'",
	"COMMENT ON COLUMN orders.order_id IS 'Order identifier.'",
	"COMMENT ON COLUMN orders.order_number IS 'Sequential order number shown to the customer.'",
	"COMMENT ON COLUMN orders.customer_id IS 'The customer record of this order.'",
	"COMMENT ON COLUMN orders.order_status IS 'Where the order is now.'",
	"COMMENT ON COLUMN orders.order_purchase_timestamp IS 'Checkout time (Brasília local time).'",
	"COMMENT ON COLUMN orders.order_approved_at IS 'Payment approval time.'",
	"COMMENT ON COLUMN orders.order_delivered_carrier_date IS 'Hand-over to the carrier.'",
	"COMMENT ON COLUMN orders.order_delivered_customer_date IS 'Delivery to the customer.'",
	"COMMENT ON COLUMN orders.order_estimated_delivery_date IS 'Delivery date promised at checkout.'",
	"COMMENT ON COLUMN orders.updated_at IS 'Last change; set on insert by default and on update by trigger.'",

	"CREATE TABLE order_items ("
	" order_id uuid NOT NULL,"
	" order_item_id smallint NOT NULL CHECK (order_item_id >= 1),"
	" product_id uuid NOT NULL,"
	" seller_id uuid NOT NULL,"
	" shipping_limit_date timestamp NOT NULL,"
	" price numeric(10,2) NOT NULL CHECK (price >= 0),"
	" freight_value numeric(10,2) NOT NULL CHECK (freight_value >= 0))",
	"COMMENT ON TABLE order_items IS 'Items of an order; two units of a product are two rows. No watermark column.'",
	"COMMENT ON COLUMN order_items.order_id IS 'The order.'",
	"COMMENT ON COLUMN order_items.order_item_id IS 'Position of the item in its order, from 1.'",
	"COMMENT ON COLUMN order_items.product_id IS 'The product.'",
	"COMMENT ON COLUMN order_items.seller_id IS 'The seller it was bought from.'",
	"COMMENT ON COLUMN order_items.shipping_limit_date IS 'Deadline for the seller to hand the item to the carrier.'",
	"COMMENT ON COLUMN order_items.price IS 'Item price in BRL.'",
	"COMMENT ON COLUMN order_items.freight_value IS 'Freight charged for the item in BRL.'",

	"CREATE TABLE payments ("
	" order_id uuid NOT NULL,"
	" payment_sequential smallint NOT NULL CHECK (payment_sequential >= 1),"
	" payment_type varchar(20) NOT NULL CHECK (payment_type IN ('credit_card', 'boleto', 'voucher', "
	"'debit_card', 'not_defined')),"
	" payment_installments smallint NOT NULL CHECK (payment_installments >= 1),"
	" payment_value numeric(10,2) NOT NULL CHECK (payment_value >= 0),"
	" updated_at timestamptz NOT NULL DEFAULT now())",
	"COMMENT ON TABLE payments IS 'Payments of an order; vouchers split an order into several. Watermark: updated_at, "
	"kept by a trigger.'",
	"COMMENT ON COLUMN payments.order_id IS 'The order paid.'",
	"COMMENT ON COLUMN payments.payment_sequential IS 'Position of the payment in its order, from 1.'",
	"COMMENT ON COLUMN payments.payment_type IS 'credit_card, boleto, voucher, debit_card or not_defined.'",
	"COMMENT ON COLUMN payments.payment_installments IS 'Installments chosen (credit cards; 1 otherwise).'",
	"COMMENT ON COLUMN payments.payment_value IS 'Amount in BRL.'",
	"COMMENT ON COLUMN payments.updated_at IS 'Last change; set on insert by default and on update by trigger.'",

	"CREATE TABLE reviews ("
	" review_id uuid NOT NULL,"
	" order_id uuid NOT NULL,"
	" review_score smallint NOT NULL CHECK (review_score BETWEEN 1 AND 5),"
	" review_comment_title varchar(64),"
	" review_comment_message text,"
	" review_creation_date date NOT NULL,"
	" review_answer_timestamp timestamp,"
	" updated_at timestamptz NOT NULL DEFAULT now())",
	"COMMENT ON TABLE reviews IS 'Satisfaction surveys answered after delivery. updated_at has a default but no "
	"trigger: it is not a trustworthy watermark.'",
	"COMMENT ON COLUMN reviews.review_id IS 'Review identifier.'",
	"COMMENT ON COLUMN reviews.order_id IS 'The order reviewed.'",
	"COMMENT ON COLUMN reviews.review_score IS 'Score from 1 (worst) to 5 (best).'",
	"COMMENT ON COLUMN reviews.review_comment_title IS 'Title the customer wrote (Portuguese), if any.'",
	"COMMENT ON COLUMN reviews.review_comment_message IS 'Comment the customer wrote (Portuguese), if any.'",
	"COMMENT ON COLUMN reviews.review_creation_date IS 'Day the survey was sent.'",
	"COMMENT ON COLUMN reviews.review_answer_timestamp IS 'When the customer answered.'",
	"COMMENT ON COLUMN reviews.updated_at IS 'Set on insert by default; updates do not move it.'",
	NULL,
};

const char *const shop_schema_post[] = {
	"ALTER TABLE product_categories ADD CONSTRAINT product_categories_pkey PRIMARY KEY (product_category_name)",
	"ALTER TABLE geolocation ADD CONSTRAINT geolocation_pkey PRIMARY KEY (geolocation_zip_code_prefix)",
	"ALTER TABLE sellers ADD CONSTRAINT sellers_pkey PRIMARY KEY (seller_id)",
	"ALTER TABLE products ADD CONSTRAINT products_pkey PRIMARY KEY (product_id)",
	"ALTER TABLE customers ADD CONSTRAINT customers_pkey PRIMARY KEY (customer_id)",
	"ALTER TABLE orders ADD CONSTRAINT orders_pkey PRIMARY KEY (order_id)",
	"ALTER TABLE orders ADD CONSTRAINT orders_order_number_key UNIQUE (order_number)",
	"ALTER TABLE order_items ADD CONSTRAINT order_items_pkey PRIMARY KEY (order_id, order_item_id)",
	"ALTER TABLE payments ADD CONSTRAINT payments_pkey PRIMARY KEY (order_id, payment_sequential)",
	"ALTER TABLE reviews ADD CONSTRAINT reviews_pkey PRIMARY KEY (review_id)",

	"ALTER TABLE sellers ADD CONSTRAINT sellers_seller_zip_code_prefix_fkey FOREIGN KEY (seller_zip_code_prefix) "
	"REFERENCES geolocation",
	"ALTER TABLE products ADD CONSTRAINT products_product_category_name_fkey FOREIGN KEY (product_category_name) "
	"REFERENCES product_categories",
	"ALTER TABLE customers ADD CONSTRAINT customers_customer_zip_code_prefix_fkey FOREIGN KEY "
	"(customer_zip_code_prefix) REFERENCES geolocation",
	"ALTER TABLE orders ADD CONSTRAINT orders_customer_id_fkey FOREIGN KEY (customer_id) REFERENCES customers",
	"ALTER TABLE order_items ADD CONSTRAINT order_items_order_id_fkey FOREIGN KEY (order_id) REFERENCES orders",
	"ALTER TABLE order_items ADD CONSTRAINT order_items_product_id_fkey FOREIGN KEY (product_id) REFERENCES products",
	"ALTER TABLE order_items ADD CONSTRAINT order_items_seller_id_fkey FOREIGN KEY (seller_id) REFERENCES sellers",
	"ALTER TABLE payments ADD CONSTRAINT payments_order_id_fkey FOREIGN KEY (order_id) REFERENCES orders",
	"ALTER TABLE reviews ADD CONSTRAINT reviews_order_id_fkey FOREIGN KEY (order_id) REFERENCES orders",

	"CREATE INDEX customers_customer_unique_id_idx ON customers (customer_unique_id)",
	"CREATE INDEX orders_customer_id_idx ON orders (customer_id)",
	"CREATE INDEX orders_updated_at_idx ON orders (updated_at)",
	"CREATE INDEX order_items_product_id_idx ON order_items (product_id)",
	"CREATE INDEX order_items_seller_id_idx ON order_items (seller_id)",
	"CREATE INDEX payments_updated_at_idx ON payments (updated_at)",
	"CREATE INDEX reviews_order_id_idx ON reviews (order_id)",

	"CREATE TRIGGER orders_set_updated_at BEFORE UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION set_updated_at()",
	"CREATE TRIGGER payments_set_updated_at BEFORE UPDATE ON payments FOR EACH ROW EXECUTE FUNCTION "
	"set_updated_at()",

	"SELECT setval(pg_get_serial_sequence('orders', 'order_number'), "
	"(SELECT coalesce(max(order_number), 0) + 1 FROM orders), false)",
	NULL,
};

/* Dependants first; CASCADE takes what `evolve` added (e.g. a new table's foreign keys). */
const char *const shop_schema_drop[] = {
	"DROP TABLE IF EXISTS promotions, reviews, payments, order_items, orders, customers, products, sellers, "
	"geolocation, product_categories CASCADE",
	"DROP TYPE IF EXISTS order_status CASCADE",
	"DROP FUNCTION IF EXISTS set_updated_at() CASCADE",
	NULL,
};
