/*
 * profile.c — the numbers the shop is drawn from.
 *
 * Counts marked "Olist" are those of the public Brazilian e-commerce data set
 * (Olist Store, 2016-09 … 2018-10, 99,441 orders; published on Kaggle under
 * CC BY-NC-SA 4.0) and reproduce its mixes exactly; the samplers normalise them.
 * Everything else (category prices and weights, geography spread, texts) is a
 * modelling choice stated as such; src/shop/README.md lists which is which.
 */
#include "shop/shop_int.h"

/* ---- orders ---- */

const char *const shop_status_names[SHOP_N_STATUS] = {
	"created", "approved", "invoiced", "processing", "shipped", "delivered", "canceled", "unavailable",
};

/* Olist orders by order_status. */
const double shop_status_counts[SHOP_N_STATUS] = { 5, 2, 314, 301, 1107, 96478, 625, 609 };

/* Olist orders (with at least one item) by number of items; 98,666 orders, 112,650 items. */
const double shop_items_per_order[SHOP_MAX_ITEMS + 1] = {
	0, 88863, 7516, 1322, 505, 204, 198, 22, 8, 3, 8, 4, 5, 1, 2, 2, 0, 0, 0, 0, 2, 1,
};

/* Olist orders by hour of order_purchase_timestamp. */
const double shop_hour_counts[24] = {
	2394, 1170, 510, 272, 206, 188, 502, 1231, 2967, 4785, 6177, 6578,
	5995, 6518, 6569, 6454, 6675, 6150, 5769, 5982, 6193, 6217, 5816, 4123,
};

/* Olist orders by weekday of order_purchase_timestamp, Monday first. */
const double shop_weekday_counts[7] = { 16196, 15963, 15552, 14761, 14122, 10887, 11960 };

const int shop_first_year = 2016, shop_first_month = 9;

/* Olist orders by month of order_purchase_timestamp, 2016-09 … 2018-10. */
const double shop_month_counts[SHOP_N_MONTHS] = {
	4, 324, 0, 1,                                                       /* 2016-09 … 12 */
	800, 1780, 2682, 2404, 3700, 3245, 4026, 4331, 4285, 4631, 7544, 5673, /* 2017 */
	7269, 6728, 7211, 6939, 6873, 6167, 6292, 6512, 16, 4,              /* 2018-01 … 10 */
};

/*
 * Transit slowdown by month (model): Olist's late deliveries cluster after Black
 * Friday 2017 and in February–March 2018; a factor on transit time reproduces that.
 */
const double shop_month_slowdown[SHOP_N_MONTHS] = {
	1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1.30, 1.15,
	1.05, 1.35, 1.45, 1.05, 1, 1, 1, 1, 1, 1,
};

/* ---- payments ---- */

const char *const shop_payment_names[SHOP_N_PAY] = {
	"credit_card", "boleto", "debit_card", "not_defined", "voucher",
};

/* Olist order_payments rows by payment_type (103,886 rows). */
const double shop_payment_counts[SHOP_N_PAY] = { 76795, 19784, 1529, 3, 5775 };

/* Olist credit-card payments by payment_installments (76,795 rows; the two 0s dropped). */
const double shop_installments[SHOP_MAX_INSTALLMENTS + 1] = {
	0, 25455, 12413, 10461, 7098, 5239, 3920, 1626, 4268, 644, 5328, 23, 133,
	16, 15, 74, 5, 8, 27, 0, 17, 3, 1, 1, 18,
};

/* ---- reviews ---- */

/* Share of reviews by review_score (index = score), as the issue states Olist's mix. */
const double shop_review_scores[6] = { 0, 0.109, 0.031, 0.082, 0.196, 0.583 };

/* ---- geography ---- */

/*
 * Brazil's states: Olist customers and sellers per state (exact); the CEP range
 * by state (Correios, main range); the capital's coordinates; the spread of
 * the other cities and the capital's share of customers (model, near Olist's).
 */
const shop_state shop_states[SHOP_N_STATES] = {
	{ "SP", 41746, 1849, 1000, 19999, -23.5505, -46.6333, 1.6, 0.37,
	  { "são paulo", "campinas", "guarulhos", "santo andré", "são bernardo do campo", "osasco",
	    "sorocaba", "ribeirão preto" } },
	{ "RJ", 12852, 171, 20000, 28999, -22.9068, -43.1729, 0.9, 0.53,
	  { "rio de janeiro", "niterói", "nova iguaçu", "duque de caxias", "são gonçalo", "petrópolis",
	    "campos dos goytacazes", "volta redonda" } },
	{ "MG", 11635, 244, 30000, 39999, -19.9167, -43.9345, 2.8, 0.24,
	  { "belo horizonte", "uberlândia", "contagem", "juiz de fora", "betim", "montes claros",
	    "uberaba", "governador valadares" } },
	{ "RS", 5466, 129, 90000, 99999, -30.0346, -51.2177, 2.2, 0.25,
	  { "porto alegre", "caxias do sul", "pelotas", "canoas", "santa maria", "novo hamburgo" } },
	{ "PR", 5045, 349, 80000, 87999, -25.4284, -49.2733, 2.0, 0.30,
	  { "curitiba", "londrina", "maringá", "ponta grossa", "cascavel", "são josé dos pinhais",
	    "foz do iguaçu" } },
	{ "SC", 3637, 190, 88000, 89999, -27.5954, -48.5480, 1.4, 0.16,
	  { "florianópolis", "joinville", "blumenau", "são josé", "itajaí", "chapecó", "criciúma" } },
	{ "BA", 3380, 19, 40000, 48999, -12.9714, -38.5014, 3.0, 0.37,
	  { "salvador", "feira de santana", "vitória da conquista", "camaçari", "itabuna", "juazeiro" } },
	{ "DF", 2140, 30, 70000, 72799, -15.7939, -47.8828, 0.2, 0.80,
	  { "brasília", "taguatinga", "ceilândia", "gama" } },
	{ "ES", 2033, 23, 29000, 29999, -20.3155, -40.3128, 0.8, 0.18,
	  { "vitória", "vila velha", "serra", "cariacica", "cachoeiro de itapemirim", "linhares" } },
	{ "GO", 2020, 40, 72800, 76799, -16.6869, -49.2648, 2.2, 0.35,
	  { "goiânia", "aparecida de goiânia", "anápolis", "rio verde", "luziânia" } },
	{ "PE", 1652, 9, 50000, 56999, -8.0476, -34.8770, 2.0, 0.40,
	  { "recife", "jaboatão dos guararapes", "olinda", "caruaru", "petrolina", "paulista" } },
	{ "CE", 1336, 13, 60000, 63999, -3.7319, -38.5267, 1.8, 0.50,
	  { "fortaleza", "caucaia", "juazeiro do norte", "maracanaú", "sobral" } },
	{ "PA", 975, 1, 66000, 68899, -1.4558, -48.4902, 4.0, 0.42,
	  { "belém", "ananindeua", "santarém", "marabá", "castanhal" } },
	{ "MT", 907, 4, 78000, 78899, -15.6014, -56.0979, 3.5, 0.35,
	  { "cuiabá", "várzea grande", "rondonópolis", "sinop" } },
	{ "MA", 747, 1, 65000, 65999, -2.5307, -44.3068, 2.5, 0.42,
	  { "são luís", "imperatriz", "caxias", "timon" } },
	{ "MS", 715, 5, 79000, 79999, -20.4697, -54.6201, 2.5, 0.45,
	  { "campo grande", "dourados", "três lagoas", "corumbá" } },
	{ "PB", 536, 6, 58000, 58999, -7.1195, -34.8450, 1.2, 0.45,
	  { "joão pessoa", "campina grande", "santa rita", "patos" } },
	{ "PI", 495, 1, 64000, 64999, -5.0892, -42.8019, 2.5, 0.50,
	  { "teresina", "parnaíba", "picos" } },
	{ "RN", 485, 5, 59000, 59999, -5.7945, -35.2110, 1.2, 0.50,
	  { "natal", "mossoró", "parnamirim" } },
	{ "AL", 413, 0, 57000, 57999, -9.6498, -35.7089, 0.8, 0.55,
	  { "maceió", "arapiraca", "rio largo" } },
	{ "SE", 350, 2, 49000, 49999, -10.9472, -37.0731, 0.6, 0.55,
	  { "aracaju", "nossa senhora do socorro", "lagarto" } },
	{ "TO", 280, 0, 77000, 77999, -10.1844, -48.3336, 2.5, 0.35,
	  { "palmas", "araguaína", "gurupi" } },
	{ "RO", 253, 2, 76800, 76999, -8.7612, -63.9004, 2.5, 0.40,
	  { "porto velho", "ji-paraná", "ariquemes", "vilhena" } },
	{ "AM", 148, 1, 69000, 69299, -3.1190, -60.0217, 4.0, 0.85,
	  { "manaus", "parintins", "itacoatiara" } },
	{ "AC", 81, 1, 69900, 69999, -9.9754, -67.8249, 2.0, 0.70,
	  { "rio branco", "cruzeiro do sul" } },
	{ "AP", 68, 0, 68900, 68999, 0.0349, -51.0694, 1.0, 0.75,
	  { "macapá", "santana" } },
	{ "RR", 46, 0, 69300, 69399, 2.8235, -60.6758, 1.5, 0.85,
	  { "boa vista", "rorainópolis" } },
};

/* ---- catalogue ---- */

/*
 * Olist's 71 translated categories with their products (exact for the top
 * thirty, approximate below); the median price, its spread and the median
 * weight are a model fitted by eye to Olist's per-category averages.
 */
#define C(name, en, n, price, sigma, grams, kind) { name, en, n, price, sigma, grams, SHOP_ATTR_##kind }
const shop_category shop_categories[SHOP_N_CATEGORIES] = {
	C("cama_mesa_banho", "bed_bath_table", 3029, 70, 0.65, 1400, HOME),
	C("esporte_lazer", "sports_leisure", 2867, 75, 0.85, 900, GENERIC),
	C("moveis_decoracao", "furniture_decor", 2657, 62, 0.85, 1900, HOME),
	C("beleza_saude", "health_beauty", 2444, 82, 0.85, 400, BEAUTY),
	C("utilidades_domesticas", "housewares", 2335, 60, 0.80, 1300, HOME),
	C("automotivo", "auto", 1900, 90, 0.90, 900, GENERIC),
	C("informatica_acessorios", "computers_accessories", 1639, 78, 0.90, 500, TECH),
	C("brinquedos", "toys", 1411, 80, 0.85, 900, GENERIC),
	C("relogios_presentes", "watches_gifts", 1329, 140, 0.80, 350, FASHION),
	C("telefonia", "telephony", 1134, 38, 0.90, 200, TECH),
	C("bebes", "baby", 919, 85, 0.85, 1500, GENERIC),
	C("perfumaria", "perfumery", 868, 90, 0.80, 400, BEAUTY),
	C("fashion_bolsas_e_acessorios", "fashion_bags_accessories", 849, 55, 0.75, 350, FASHION),
	C("papelaria", "stationery", 849, 60, 0.90, 600, GENERIC),
	C("cool_stuff", "cool_stuff", 789, 120, 0.80, 1200, GENERIC),
	C("ferramentas_jardim", "garden_tools", 753, 75, 0.90, 1500, GENERIC),
	C("pet_shop", "pet_shop", 719, 70, 0.85, 1100, GENERIC),
	C("eletronicos", "electronics", 517, 40, 0.90, 300, TECH),
	C("construcao_ferramentas_construcao", "construction_tools_construction", 400, 90, 0.90, 2000, HOME),
	C("eletrodomesticos", "home_appliances", 370, 70, 1.00, 2200, TECH),
	C("malas_acessorios", "luggage_accessories", 349, 120, 0.70, 3000, FASHION),
	C("consoles_games", "consoles_games", 317, 90, 0.90, 500, TECH),
	C("moveis_escritorio", "office_furniture", 309, 150, 0.60, 11000, HOME),
	C("instrumentos_musicais", "musical_instruments", 289, 190, 0.95, 2500, GENERIC),
	C("eletroportateis", "small_appliances", 231, 160, 0.95, 2500, TECH),
	C("casa_construcao", "home_construction", 225, 90, 0.95, 1800, HOME),
	C("livros_interesse_geral", "books_general_interest", 216, 50, 0.65, 450, MEDIA),
	C("fashion_calcados", "fashion_shoes", 173, 90, 0.70, 800, FASHION),
	C("alimentos", "food", 192, 45, 0.75, 700, FOOD),
	C("moveis_sala", "furniture_living_room", 156, 140, 0.75, 7000, HOME),
	C("casa_conforto", "home_confort", 153, 110, 0.70, 2800, HOME),
	C("climatizacao", "air_conditioning", 124, 140, 1.00, 3500, TECH),
	C("livros_tecnicos", "books_technical", 123, 75, 0.60, 650, MEDIA),
	C("artigos_de_natal", "christmas_supplies", 128, 45, 0.80, 900, HOME),
	C("telefonia_fixa", "fixed_telephony", 116, 120, 1.10, 600, TECH),
	C("construcao_ferramentas_seguranca", "construction_tools_safety", 113, 130, 1.00, 1500, GENERIC),
	C("market_place", "market_place", 104, 90, 0.90, 1100, GENERIC),
	C("alimentos_bebidas", "food_drink", 104, 40, 0.75, 900, FOOD),
	C("fashion_roupa_masculina", "fashion_male_clothing", 95, 80, 0.60, 350, FASHION),
	C("moveis_cozinha_area_de_servico_jantar_e_jardim", "kitchen_dining_laundry_garden_furniture", 94,
	  150, 0.80, 8000, HOME),
	C("sinalizacao_e_seguranca", "signaling_and_security", 93, 70, 1.00, 900, GENERIC),
	C("eletrodomesticos_2", "home_appliances_2", 90, 350, 0.85, 9000, TECH),
	C("construcao_ferramentas_jardim", "costruction_tools_garden", 88, 80, 0.90, 1500, GENERIC),
	C("bebidas", "drinks", 81, 45, 0.80, 1200, FOOD),
	C("construcao_ferramentas_iluminacao", "construction_tools_lights", 78, 80, 0.85, 900, HOME),
	C("agro_industria_e_comercio", "agro_industry_and_commerce", 74, 200, 1.10, 3000, GENERIC),
	C("industria_comercio_e_negocios", "industry_commerce_and_business", 68, 110, 1.00, 3000, GENERIC),
	C("audio", "audio", 58, 90, 0.90, 500, TECH),
	C("artes", "art", 55, 70, 0.90, 1000, GENERIC),
	C("fashion_underwear_e_moda_praia", "fashion_underwear_beach", 53, 50, 0.60, 250, FASHION),
	C("dvds_blu_ray", "dvds_blu_ray", 48, 60, 0.80, 300, MEDIA),
	C("moveis_quarto", "furniture_bedroom", 45, 130, 0.90, 9000, HOME),
	C("construcao_ferramentas_ferramentas", "costruction_tools_tools", 39, 110, 0.90, 2000, GENERIC),
	C("fashion_roupa_feminina", "fashio_female_clothing", 37, 60, 0.60, 300, FASHION),
	C("livros_importados", "books_imported", 31, 70, 0.60, 500, MEDIA),
	C("pcs", "computers", 30, 900, 0.70, 6000, TECH),
	C("cine_foto", "cine_photo", 28, 70, 1.00, 400, TECH),
	C("musica", "music", 27, 90, 1.00, 700, MEDIA),
	C("artigos_de_festas", "party_supplies", 26, 60, 0.80, 600, GENERIC),
	C("fashion_esporte", "fashion_sport", 19, 60, 0.60, 400, FASHION),
	C("artes_e_artesanato", "arts_and_craftmanship", 19, 60, 0.90, 600, GENERIC),
	C("flores", "flowers", 14, 30, 0.60, 500, GENERIC),
	C("fraldas_higiene", "diapers_and_hygiene", 12, 35, 0.60, 2500, BEAUTY),
	C("moveis_colchao_e_estofado", "furniture_mattress_and_upholstery", 10, 100, 0.80, 9000, HOME),
	C("portateis_casa_forno_e_cafe", "small_appliances_home_oven_and_coffee", 10, 450, 0.70, 5000, TECH),
	C("la_cuisine", "la_cuisine", 10, 140, 0.80, 2500, HOME),
	C("tablets_impressao_imagem", "tablets_printing_image", 9, 80, 0.80, 500, TECH),
	C("casa_conforto_2", "home_comfort_2", 5, 25, 0.60, 1000, HOME),
	C("fashion_roupa_infanto_juvenil", "fashion_childrens_clothes", 5, 60, 0.50, 300, FASHION),
	C("seguros_e_servicos", "security_and_services", 2, 180, 0.50, 800, GENERIC),
	C("cds_dvds_musicais", "cds_dvds_musicals", 1, 60, 0.30, 300, MEDIA),
};
#undef C

/* ---- words (model) ---- */

#define WORDS(name, ...)                                                   \
	static const char *const name##_list[] = { __VA_ARGS__ };          \
	const shop_words name = { name##_list, sizeof(name##_list) / sizeof(name##_list[0]) }

WORDS(shop_colors, "preto", "branco", "azul", "vermelho", "cinza", "verde", "rosa", "bege", "marrom",
      "amarelo", "prata", "dourado");
WORDS(shop_materials, "algodão", "madeira", "aço inox", "plástico", "vidro", "couro sintético", "bambu",
      "cerâmica", "MDF", "poliéster", "alumínio", "silicone");
WORDS(shop_brands, "Atlântica", "Prado", "Veredas", "Nortec", "Casa Viva", "Solaris", "Brisa", "Ipê",
      "Tupã", "Aurora", "Maré", "Cerrado", "Jequitibá", "Pampa", "Sertão", "Litoral");
WORDS(shop_sizes, "PP", "P", "M", "G", "GG", "XG", "único");
WORDS(shop_languages, "português", "inglês", "espanhol");
WORDS(shop_tags, "frete-gratis", "promocao", "lancamento", "mais-vendido", "importado", "nacional",
      "kit", "presente", "sustentavel", "garantia-estendida", "exclusivo-online", "ultimas-unidades");

static const char *const titles_bad[] = {
	"Não recebi", "Péssimo", "Ruim", "Produto errado", "Atrasou", "Não recomendo", "Decepcionado",
	"Veio com defeito",
};
static const char *const titles_mid[] = { "Razoável", "Regular", "Ok", "Poderia ser melhor", "Mais ou menos" };
static const char *const titles_good[] = {
	"Recomendo", "Ótimo", "Muito bom", "Excelente", "Super recomendo", "Bom", "Perfeito", "Adorei",
	"Chegou rápido", "Nota 10",
};
const shop_words shop_titles[3] = {
	{ titles_bad, sizeof(titles_bad) / sizeof(titles_bad[0]) },
	{ titles_mid, sizeof(titles_mid) / sizeof(titles_mid[0]) },
	{ titles_good, sizeof(titles_good) / sizeof(titles_good[0]) },
};

static const char *const phrases_bad[] = {
	"Ainda não recebi o produto.",
	"O produto veio com defeito.",
	"Recebi apenas uma parte do pedido.",
	"Produto diferente do anunciado.",
	"A entrega atrasou muito.",
	"Não recomendo esta loja.",
	"Já entrei em contato e ninguém respondeu.",
	"A embalagem chegou aberta.",
	"Comprei dois e veio só um.",
	"Quero o meu dinheiro de volta.",
};
static const char *const phrases_mid[] = {
	"Produto ok.",
	"Chegou no prazo, mas a embalagem estava amassada.",
	"Atende ao esperado.",
	"A qualidade poderia ser melhor.",
	"Demorou um pouco, mas chegou.",
	"O tamanho é menor do que parece na foto.",
};
static const char *const phrases_good[] = {
	"Produto chegou antes do prazo.",
	"Muito bem embalado.",
	"Recomendo a loja.",
	"Qualidade excelente, igual à foto.",
	"Entrega rápida.",
	"Ótimo custo-benefício.",
	"Comprarei novamente.",
	"Meu filho adorou! 👍",
	"Vendedor atencioso.",
	"Tudo certo com o pedido.",
};
const shop_words shop_phrases[3] = {
	{ phrases_bad, sizeof(phrases_bad) / sizeof(phrases_bad[0]) },
	{ phrases_mid, sizeof(phrases_mid) / sizeof(phrases_mid[0]) },
	{ phrases_good, sizeof(phrases_good) / sizeof(phrases_good[0]) },
};
