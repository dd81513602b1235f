/*
 * keyindex.c — key → (data file, position) as a local cache of segments (keyindex.h).
 *
 * A segment, one file, every integer little-endian as this machine writes it (the cache is
 * this machine's; a foreign one fails its magic or its checksum and is left out):
 *
 *   header   "FLOEKIX3", width, prefix, n_files, 0 (u32 each), n_rows, n_slots, files_bytes, sum (u64)
 *   files    per data file: rows (u64), path length (u32), the path; padded to 8 bytes
 *   slots    n_slots u32: 0 empty, else 1 + a row's ordinal (its file's first ordinal + position);
 *            open addressing, linear probing from the slot of the prefix's hash; padded to 8
 *   sums     a u64 checksum per KEY_CHUNK keys, then per SLOT_CHUNK slots
 *   keys     n_rows × width: each file's keys in row order, the files one after another
 *
 * `sum` covers the header (sum 0), the files and the chunk sums, checked when the segment is
 * opened; a run of slots or keys is checked before it is first read. Every key with a given
 * prefix hash sits in the run of occupied slots that starts at its home slot, so a lookup reads
 * that run to its first empty slot. Writing is two passes over the keys (hash and place, then
 * checksums) and the keys themselves straight from the caller's (or an old segment's) memory.
 */
#include "keyindex/keyindex.h"
#include "keyindex/cache.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define MAGIC "FLOEKIX3"
/* A lookup checks the run of slots it probes and the chunk of each key it compares (per segment):
   1 KB of slots and 256 bytes a uuid key (format 2's 1024 slots and 256 keys checked 4 KB + 4 KB a
   compare — a shop build's 3500 lookups, ~40 ms); the sums cost half a byte a key */
#define KEY_CHUNK 16
#define SLOT_CHUNK 256
#define FOLD_AT 8            /* segments kept before they are written again as one */
#define MANIFEST "manifest"
#define MANIFEST_HEAD "floe keyindex 3\n"
#define MAX_ROWS ((uint64_t)UINT32_MAX - 1)

typedef struct header {
	char magic[8];
	uint32_t width, prefix, n_files, zero;
	uint64_t n_rows, n_slots, files_bytes, sum;
} header;

typedef struct segment {
	char *name;
	uint8_t *map;
	size_t len;
	uint32_t n_files;
	uint64_t n_rows, n_slots;
	const uint32_t *slots;
	const uint64_t *key_sums, *slot_sums;
	const uint8_t *keys;
	size_t file0;                 /* ix->files index of its first file */
	uint8_t *key_checked, *slot_checked; /* per chunk: its sum matched */
} segment;

typedef struct kfile {
	char *path;
	int64_t rows;
	uint64_t first;               /* its first row's ordinal in its segment */
	bool shadowed;                /* an earlier segment holds the same file: these rows are not read */
	bool live;                    /* prune's mark */
	size_t seg;
} kfile;

struct floe_keyindex {
	char *dir;
	size_t width, prefix;
	segment *segs;
	size_t n_segs;
	kfile *files;
	size_t n_files;
};

static char *xstrdup(const char *s) { return floe_xstrndup(s, strlen(s)); }

static size_t pad8(size_t n) { return (n + 7) & ~(size_t)7; }

static size_t chunks(uint64_t n, size_t per) { return (size_t)((n + per - 1) / per); }

/* The hash of a key's first n bytes. */
static uint64_t hash_prefix(const uint8_t *p, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w;
	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = floe_cache_mix(h ^ w);
	}
	if (n) {
		w = 0;
		memcpy(&w, p, n);
		h = floe_cache_mix(h ^ w ^ ((uint64_t)n << 56));
	}
	return h;
}

/* The home slot of hash h among n (the high bits of h × n: every slot as likely). */
static uint64_t home(uint64_t h, uint64_t n) { return (uint64_t)(((unsigned __int128)h * n) >> 64); }

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static void path_of(floe_buf *out, const floe_keyindex *ix, const char *name)
{
	floe_buf_clear(out);
	floe_buf_printf(out, "%s/%s", ix->dir, name);
}

static void clear(floe_keyindex *ix)
{
	for (size_t i = 0; i < ix->n_segs; i++) {
		munmap(ix->segs[i].map, ix->segs[i].len);
		free(ix->segs[i].name);
		free(ix->segs[i].key_checked);
		free(ix->segs[i].slot_checked);
	}
	for (size_t i = 0; i < ix->n_files; i++)
		free(ix->files[i].path);
	free(ix->segs);
	free(ix->files);
	ix->segs = NULL, ix->files = NULL;
	ix->n_segs = ix->n_files = 0;
}

/* Where the parts of segment `s` with header `h` start; 0, or -1 when they do not fit its size. */
static int lay_out(const floe_keyindex *ix, segment *s, const header *h)
{
	if (h->n_rows > MAX_ROWS || h->n_slots > ((uint64_t)1 << 34) || h->n_slots <= h->n_rows ||
	    h->files_bytes > s->len)
		return -1;
	uint64_t meta = sizeof(header) + h->files_bytes + pad8(h->n_slots * 4) +
			(chunks(h->n_rows, KEY_CHUNK) + chunks(h->n_slots, SLOT_CHUNK)) * 8;
	if (meta > s->len || s->len - meta != h->n_rows * ix->width)
		return -1;
	const uint8_t *p = s->map + sizeof(header) + h->files_bytes;
	s->slots = (const uint32_t *)p;
	s->key_sums = (const uint64_t *)(p + pad8(h->n_slots * 4));
	s->slot_sums = s->key_sums + chunks(h->n_rows, KEY_CHUNK);
	s->keys = s->map + meta;
	s->n_files = h->n_files, s->n_rows = h->n_rows, s->n_slots = h->n_slots;
	return 0;
}

/* The header, files and chunk sums of `s` checked; 0, or -1. */
static int check_meta(const floe_keyindex *ix, segment *s, const header *h)
{
	if (memcmp(h->magic, MAGIC, 8) != 0 || h->width != ix->width || h->prefix != ix->prefix || lay_out(ix, s, h) < 0)
		return -1;
	header copy = *h;
	copy.sum = 0;
	uint64_t sum = floe_cache_checksum(0, (const uint8_t *)&copy, sizeof(copy));
	sum = floe_cache_checksum(sum, s->map + sizeof(header), h->files_bytes);
	sum = floe_cache_checksum(sum, (const uint8_t *)s->key_sums,
		       (chunks(h->n_rows, KEY_CHUNK) + chunks(h->n_slots, SLOT_CHUNK)) * 8);
	return sum == h->sum ? 0 : -1;
}

/* The file table of `s` into ix->files; 0, or -1 when it does not add up to its rows. */
static int read_files(floe_keyindex *ix, segment *s, size_t files_bytes)
{
	const uint8_t *p = s->map + sizeof(header), *end = p + files_bytes;
	uint64_t first = 0;
	s->file0 = ix->n_files;
	ix->files = floe_xrealloc(ix->files, (ix->n_files + s->n_files + 1) * sizeof(*ix->files));
	for (uint32_t i = 0; i < s->n_files; i++) {
		if (end - p < 12)
			return -1;
		uint64_t rows = rd64(p);
		uint32_t len = rd32(p + 8);
		p += 12;
		if ((size_t)(end - p) < len || rows > s->n_rows - first)
			return -1;
		kfile *f = &ix->files[ix->n_files];
		*f = (kfile){ .path = floe_xstrndup((const char *)p, len), .rows = (int64_t)rows, .first = first,
			      .seg = (size_t)(s - ix->segs) };
		for (size_t k = 0; k < ix->n_files && !f->shadowed; k++)
			f->shadowed = !ix->files[k].shadowed && strcmp(ix->files[k].path, f->path) == 0;
		ix->n_files++;
		first += rows;
		p += len;
	}
	return first == s->n_rows ? 0 : -1;
}

/* Map segment `name` into ix (appended); 0, or -1 when it is missing, damaged or of another layout (no error set). */
static int load_segment(floe_keyindex *ix, const char *name)
{
	floe_buf path = FLOE_BUF_INIT;
	path_of(&path, ix, name);
	uint8_t *map;
	size_t len;
	int rc = floe_cache_map(floe_buf_cstr(&path), &map, &len);
	floe_buf_free(&path);
	if (rc < 0)
		return -1;
	if (len < sizeof(header)) {
		munmap(map, len);
		return -1;
	}
	ix->segs = floe_xrealloc(ix->segs, (ix->n_segs + 1) * sizeof(*ix->segs));
	segment *s = &ix->segs[ix->n_segs];
	*s = (segment){ .map = map, .len = len };
	header h;
	memcpy(&h, map, sizeof(h));
	size_t before = ix->n_files;
	if (check_meta(ix, s, &h) < 0 || read_files(ix, s, h.files_bytes) < 0) {
		while (ix->n_files > before)
			free(ix->files[--ix->n_files].path);
		munmap(map, s->len);
		return -1;
	}
	s->name = xstrdup(name);
	s->key_checked = floe_xcalloc(chunks(s->n_rows, KEY_CHUNK) + 1, 1);
	s->slot_checked = floe_xcalloc(chunks(s->n_slots, SLOT_CHUNK) + 1, 1);
	ix->n_segs++;
	return 0;
}

/* The segments the manifest names (those that load). */
static void load(floe_keyindex *ix)
{
	floe_buf m = FLOE_BUF_INIT, path = FLOE_BUF_INIT;
	path_of(&path, ix, MANIFEST);
	if (floe_fs_read_file(&m, floe_buf_cstr(&path)) < 0) {
		floe_error_clear(); /* none yet: an empty index */
		goto done;
	}
	const char *text = floe_buf_cstr(&m);
	if (strncmp(text, MANIFEST_HEAD, strlen(MANIFEST_HEAD)) != 0)
		goto done;
	for (const char *p = text + strlen(MANIFEST_HEAD); *p;) {
		const char *nl = strchr(p, '\n');
		if (!nl)
			break; /* a torn last line */
		char name[64];
		size_t len = (size_t)(nl - p);
		if (len > 0 && len < sizeof(name) && strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789-") >= len) {
			memcpy(name, p, len);
			name[len] = '\0';
			if (load_segment(ix, name) < 0)
				floe_log_debug("key index %s: segment %s left out (missing, damaged or of another key)", ix->dir, name);
		}
		p = nl + 1;
	}
done:
	floe_buf_free(&m);
	floe_buf_free(&path);
}

int floe_keyindex_open(floe_keyindex **out, const char *dir, size_t width, size_t prefix)
{
	*out = NULL;
	if (floe_fs_mkdir_p(dir, 0700) < 0)
		return floe_error_context("while opening the key index at \"%s\"", dir);
	floe_keyindex *ix = floe_xcalloc(1, sizeof(*ix));
	ix->dir = xstrdup(dir);
	ix->width = width, ix->prefix = prefix;
	load(ix);
	*out = ix;
	return 0;
}

bool floe_keyindex_exists(const char *dir)
{
	floe_buf path = FLOE_BUF_INIT;
	floe_buf_printf(&path, "%s/" MANIFEST, dir);
	bool there = floe_fs_exists(floe_buf_cstr(&path));
	floe_buf_free(&path);
	return there;
}

void floe_keyindex_free(floe_keyindex *ix)
{
	if (!ix)
		return;
	clear(ix);
	free(ix->dir);
	free(ix);
}

size_t floe_keyindex_segments(const floe_keyindex *ix) { return ix->n_segs; }

static const kfile *find_file(const floe_keyindex *ix, const char *path)
{
	for (size_t i = 0; i < ix->n_files; i++)
		if (!ix->files[i].shadowed && strcmp(ix->files[i].path, path) == 0)
			return &ix->files[i];
	return NULL;
}

bool floe_keyindex_has_file(const floe_keyindex *ix, const char *path, int64_t rows)
{
	const kfile *f = find_file(ix, path);
	return f && f->rows == rows;
}

static int damaged(const floe_keyindex *ix, const segment *s, const char *what, uint64_t at)
{
	return floe_error_set(FLOE_ERR_CHECK, "the key index at \"%s\" is damaged: segment %s, %s %llu", ix->dir, s->name,
			      what, (unsigned long long)at);
}

/* The chunk of slot `i` of `s` checked once; 0, or -1 with FLOE_ERR_CHECK. */
static int check_slot(const floe_keyindex *ix, segment *s, uint64_t i)
{
	size_t c = (size_t)(i / SLOT_CHUNK);
	if (s->slot_checked[c])
		return 0;
	uint64_t first = (uint64_t)c * SLOT_CHUNK, n = s->n_slots - first < SLOT_CHUNK ? s->n_slots - first : SLOT_CHUNK;
	if (floe_cache_checksum(0, (const uint8_t *)(s->slots + first), n * 4) != s->slot_sums[c])
		return damaged(ix, s, "slots from", first);
	s->slot_checked[c] = 1;
	return 0;
}

/* The chunk of key `o` of `s` checked once; 0, or -1 with FLOE_ERR_CHECK. */
static int check_key(const floe_keyindex *ix, segment *s, uint64_t o)
{
	size_t c = (size_t)(o / KEY_CHUNK);
	if (s->key_checked[c])
		return 0;
	uint64_t first = (uint64_t)c * KEY_CHUNK, n = s->n_rows - first < KEY_CHUNK ? s->n_rows - first : KEY_CHUNK;
	if (floe_cache_checksum(0, s->keys + first * ix->width, n * ix->width) != s->key_sums[c])
		return damaged(ix, s, "keys from", first);
	s->key_checked[c] = 1;
	return 0;
}

/* The file of `s` holding ordinal o (binary search of their first ordinals). */
static const kfile *file_of(const floe_keyindex *ix, const segment *s, uint64_t o)
{
	size_t lo = 0, hi = s->n_files; /* the last file whose first ordinal is at most o */
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (ix->files[s->file0 + mid].first <= o)
			lo = mid;
		else
			hi = mid;
	}
	return &ix->files[s->file0 + lo];
}

int floe_keyindex_find(floe_keyindex *ix, const uint8_t *key, size_t len, floe_keyindex_fn fn, void *ctx)
{
	uint64_t h = hash_prefix(key, ix->prefix);
	for (size_t i = 0; i < ix->n_segs; i++) {
		segment *s = &ix->segs[i];
		for (uint64_t at = home(h, s->n_slots), seen = 0; seen < s->n_slots; seen++) {
			if (check_slot(ix, s, at) < 0)
				return -1;
			uint32_t v = s->slots[at];
			if (v == 0)
				break;
			uint64_t o = v - 1;
			if (o >= s->n_rows)
				return damaged(ix, s, "slot", at);
			if (check_key(ix, s, o) < 0)
				return -1;
			if (memcmp(s->keys + o * ix->width, key, len) == 0) {
				const kfile *f = file_of(ix, s, o);
				int rc = f->shadowed ? 0 : fn(ctx, f->path, (int64_t)(o - f->first));
				if (rc)
					return rc;
			}
			at = at + 1 == s->n_slots ? 0 : at + 1;
		}
	}
	return 0;
}

/* ---- writing ---- */

/* What a new segment holds: its files, and each file's keys (rows × width bytes, one run). */
typedef struct draft {
	const char **paths;
	int64_t *rows;
	const uint8_t **keys;
	size_t n_files;
} draft;

static void draft_file(draft *d, const char *path, int64_t rows, const uint8_t *keys)
{
	d->paths = floe_xrealloc(d->paths, (d->n_files + 1) * sizeof(*d->paths));
	d->rows = floe_xrealloc(d->rows, (d->n_files + 1) * sizeof(*d->rows));
	d->keys = floe_xrealloc(d->keys, (d->n_files + 1) * sizeof(*d->keys));
	d->paths[d->n_files] = path, d->rows[d->n_files] = rows, d->keys[d->n_files] = keys;
	d->n_files++;
}

static void draft_free(draft *d)
{
	free(d->paths);
	free(d->rows);
	free(d->keys);
}

#define AHEAD 16 /* home slots computed (and their cache lines asked for) this many keys ahead */

/* The slots of d's keys (n_rows of them) in a table of n_slots. */
static uint32_t *place(const floe_keyindex *ix, const draft *d, uint64_t n_slots)
{
	uint32_t *slots = floe_xcalloc(n_slots, 4);
	uint64_t o = 0, ring[AHEAD];
	for (size_t f = 0; f < d->n_files; f++) {
		const uint8_t *keys = d->keys[f];
		int64_t rows = d->rows[f];
		for (int64_t r = 0; r < rows + AHEAD; r++) {
			if (r >= AHEAD) { /* key r - AHEAD, whose line was asked for AHEAD keys ago */
				uint64_t at = ring[r % AHEAD];
				while (slots[at])
					at = at + 1 == n_slots ? 0 : at + 1;
				slots[at] = (uint32_t)(o++ + 1);
			}
			if (r < rows) { /* a random write a key: its line fetched while the ones before it are placed */
				ring[r % AHEAD] = home(hash_prefix(keys + (size_t)r * ix->width, ix->prefix), n_slots);
				__builtin_prefetch(&slots[ring[r % AHEAD]], 1);
			}
		}
	}
	return slots;
}

/* The checksum of each KEY_CHUNK keys of d, the files' keys one after another, into sums. */
static void key_sums(const floe_keyindex *ix, const draft *d, uint64_t *sums)
{
	uint8_t *run = floe_xmalloc(KEY_CHUNK * ix->width);
	size_t c = 0, have = 0; /* keys gathered in `run` for chunk c when it spans files */
	for (size_t f = 0; f < d->n_files; f++) {
		const uint8_t *k = d->keys[f];
		uint64_t left = (uint64_t)d->rows[f];
		while (left > 0) {
			if (have == 0 && left >= KEY_CHUNK) { /* a whole chunk within the file: read in place */
				sums[c++] = floe_cache_checksum(0, k, KEY_CHUNK * ix->width);
				k += KEY_CHUNK * ix->width, left -= KEY_CHUNK;
				continue;
			}
			size_t take = KEY_CHUNK - have < left ? KEY_CHUNK - have : (size_t)left;
			memcpy(run + have * ix->width, k, take * ix->width);
			have += take, k += take * ix->width, left -= take;
			if (have == KEY_CHUNK)
				sums[c++] = floe_cache_checksum(0, run, KEY_CHUNK * ix->width), have = 0;
		}
	}
	if (have)
		sums[c] = floe_cache_checksum(0, run, have * ix->width);
	free(run);
}

/* A new segment of `d` written; its name into *name (malloc'd). */
static int write_segment(const floe_keyindex *ix, const draft *d, char **name)
{
	uint64_t n_rows = 0;
	for (size_t f = 0; f < d->n_files; f++)
		n_rows += (uint64_t)d->rows[f];
	*name = NULL;
	if (n_rows > MAX_ROWS)
		return floe_error_set(FLOE_ERR_USAGE, "%llu rows are more than a key index segment holds",
				      (unsigned long long)n_rows);
	uint64_t n_slots = n_rows + n_rows / 3 + 16; /* three quarters full at most: short runs */
	floe_buf files = FLOE_BUF_INIT;
	for (size_t f = 0; f < d->n_files; f++) {
		uint64_t rows = (uint64_t)d->rows[f];
		uint32_t len = (uint32_t)strlen(d->paths[f]);
		floe_buf_put(&files, &rows, 8);
		floe_buf_put(&files, &len, 4);
		floe_buf_put(&files, d->paths[f], len);
	}
	while (files.len % 8)
		floe_buf_putc(&files, '\0');
	uint32_t *slots = place(ix, d, n_slots);
	size_t n_key_sums = chunks(n_rows, KEY_CHUNK), n_slot_sums = chunks(n_slots, SLOT_CHUNK);
	uint64_t *sums = floe_xcalloc(n_key_sums + n_slot_sums + 1, 8);
	key_sums(ix, d, sums);
	for (size_t c = 0; c < n_slot_sums; c++) {
		uint64_t first = (uint64_t)c * SLOT_CHUNK, n = n_slots - first < SLOT_CHUNK ? n_slots - first : SLOT_CHUNK;
		sums[n_key_sums + c] = floe_cache_checksum(0, (const uint8_t *)(slots + first), n * 4);
	}
	header h = { .width = (uint32_t)ix->width, .prefix = (uint32_t)ix->prefix, .n_files = (uint32_t)d->n_files,
		     .n_rows = n_rows, .n_slots = n_slots, .files_bytes = files.len };
	memcpy(h.magic, MAGIC, 8);
	uint64_t sum = floe_cache_checksum(0, (const uint8_t *)&h, sizeof(h));
	sum = floe_cache_checksum(sum, (const uint8_t *)files.ptr, files.len);
	h.sum = floe_cache_checksum(sum, (const uint8_t *)sums, (n_key_sums + n_slot_sums) * 8);
	static const uint8_t zeros[8];
	struct iovec *iov = floe_xmalloc((d->n_files + 5) * sizeof(*iov));
	size_t n_iov = 0;
	iov[n_iov++] = (struct iovec){ &h, sizeof(h) };
	iov[n_iov++] = (struct iovec){ files.ptr, files.len };
	iov[n_iov++] = (struct iovec){ slots, n_slots * 4 };
	iov[n_iov++] = (struct iovec){ (void *)zeros, pad8(n_slots * 4) - n_slots * 4 };
	iov[n_iov++] = (struct iovec){ sums, (n_key_sums + n_slot_sums) * 8 };
	for (size_t f = 0; f < d->n_files; f++)
		iov[n_iov++] = (struct iovec){ (void *)d->keys[f], (size_t)d->rows[f] * ix->width };
	uint64_t r[2];
	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		r[0] = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL), r[1] = (uint64_t)(uintptr_t)d ^ (uint64_t)clock();
	char n[48];
	snprintf(n, sizeof(n), "seg-%016llx%016llx", (unsigned long long)r[0], (unsigned long long)r[1]);
	int error = floe_cache_write(ix->dir, n, iov, n_iov);
	if (error == 0)
		*name = xstrdup(n);
	free(iov);
	free(sums);
	free(slots);
	floe_buf_free(&files);
	return error;
}

/* The manifest naming `names` (n of them). */
static int write_manifest(const floe_keyindex *ix, char *const *names, size_t n)
{
	floe_buf m = FLOE_BUF_INIT;
	floe_buf_puts(&m, MANIFEST_HEAD);
	for (size_t i = 0; i < n; i++)
		floe_buf_printf(&m, "%s\n", names[i]);
	struct iovec iov = { m.ptr, m.len };
	int error = floe_cache_write(ix->dir, MANIFEST, &iov, 1);
	floe_buf_free(&m);
	return error;
}

/* The segments named `names` (n) as the index: the manifest written, the segments loaded again. */
static int install(floe_keyindex *ix, char *const *names, size_t n)
{
	int error = write_manifest(ix, names, n);
	clear(ix);
	load(ix);
	return error;
}

/* The current segments' names and `extra` (NULL: none), copied (install clears the segments that own them). */
static char **names_with(const floe_keyindex *ix, const bool *keep, const char *extra, size_t *n)
{
	char **names = floe_xmalloc((ix->n_segs + 1) * sizeof(*names));
	*n = 0;
	for (size_t i = 0; i < ix->n_segs; i++)
		if (!keep || keep[i])
			names[(*n)++] = xstrdup(ix->segs[i].name);
	if (extra)
		names[(*n)++] = xstrdup(extra);
	return names;
}

static void names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int floe_keyindex_add(floe_keyindex *ix, const floe_keyindex_file *files, size_t n)
{
	draft d = { 0 };
	char *name = NULL;
	int error = 0;
	for (size_t i = 0; i < n; i++) {
		bool seen = find_file(ix, files[i].path) != NULL;
		for (size_t k = 0; k < d.n_files && !seen; k++)
			seen = strcmp(d.paths[k], files[i].path) == 0;
		if (!seen && files[i].rows >= 0)
			draft_file(&d, files[i].path, files[i].rows, files[i].keys);
	}
	if (d.n_files && (error = write_segment(ix, &d, &name)) == 0) {
		size_t n_names;
		char **names = names_with(ix, NULL, name, &n_names);
		error = install(ix, names, n_names);
		names_free(names, n_names);
	}
	free(name);
	draft_free(&d);
	return error;
}

/* The live files' keys of every segment as one new segment (their keys checked first); its name into *name. */
static int fold(floe_keyindex *ix, char **name)
{
	draft d = { 0 };
	int error = 0;
	for (size_t i = 0; i < ix->n_files && error == 0; i++) {
		kfile *f = &ix->files[i];
		segment *s = &ix->segs[f->seg];
		if (!f->live || f->shadowed)
			continue;
		for (uint64_t o = f->first; o < f->first + (uint64_t)f->rows && error == 0; o += KEY_CHUNK - o % KEY_CHUNK)
			error = check_key(ix, s, o);
		draft_file(&d, f->path, f->rows, s->keys + f->first * ix->width);
	}
	if (error == 0)
		error = write_segment(ix, &d, name);
	draft_free(&d);
	return error;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

int floe_keyindex_prune(floe_keyindex *ix, const char *const *live, size_t n_live)
{
	const char **sorted = floe_xmalloc((n_live + 1) * sizeof(*sorted));
	if (n_live)
		memcpy(sorted, live, n_live * sizeof(*sorted));
	qsort(sorted, n_live, sizeof(*sorted), cmp_str);
	bool *keep = floe_xcalloc(ix->n_segs + 1, sizeof(*keep));
	int64_t live_rows = 0, dead_rows = 0;
	for (size_t i = 0; i < ix->n_files; i++) {
		kfile *f = &ix->files[i];
		f->live = !f->shadowed && bsearch(&f->path, sorted, n_live, sizeof(*sorted), cmp_str) != NULL;
		keep[f->seg] |= f->live;
	}
	size_t n_keep = 0;
	for (size_t i = 0; i < ix->n_segs; i++)
		n_keep += keep[i];
	for (size_t i = 0; i < ix->n_files; i++)
		if (keep[ix->files[i].seg])
			*(ix->files[i].live ? &live_rows : &dead_rows) += ix->files[i].rows;
	bool refold = n_keep > FOLD_AT || (n_keep > 1 && dead_rows > live_rows);
	floe_cache_sweep(ix->dir); /* a killed writer's temporary segment */
	char *folded = NULL, **gone = NULL, **names = NULL;
	size_t n_gone = 0, n_names = 0;
	int error = 0;
	if (refold && (error = fold(ix, &folded)) < 0)
		goto cleanup;
	if (!refold && n_keep == ix->n_segs)
		goto cleanup; /* nothing leaves */
	for (size_t i = 0; i < ix->n_segs; i++) /* what leaves: named no more, then removed */
		keep[i] = keep[i] && !refold;
	names = names_with(ix, keep, folded, &n_names);
	for (size_t i = 0; i < ix->n_segs; i++)
		keep[i] = !keep[i];
	gone = names_with(ix, keep, NULL, &n_gone);
	error = install(ix, names, n_names);
	floe_buf path = FLOE_BUF_INIT;
	for (size_t i = 0; i < n_gone && error == 0; i++) {
		path_of(&path, ix, gone[i]);
		unlink(floe_buf_cstr(&path));
	}
	floe_buf_free(&path);
cleanup:
	names_free(gone, n_gone);
	names_free(names, n_names);
	free(folded);
	free(keep);
	free(sorted);
	return error;
}
