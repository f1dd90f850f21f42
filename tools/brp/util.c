/* brp: helpers shared by the subcommands (see brp.h). */
#include "brp.h"

#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/*
 * The length of the UTF-8 sequence at p if it is well formed and not a C1
 * control (U+0080 to U+009F, which some terminals obey as ESC sequences),
 * else 0; p[0] >= 0x80.
 */
static size_t utf8_printable(const unsigned char *p)
{
	if (p[0] == 0xc2 && p[1] < 0xa0)
		return 0;
	return brp_utf8_len(p);
}

void brp_text_n(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
	size_t n;

	if (max < (size_t)(end - p)) {
		/* stop at a character's start, so the prefix does not end in half of one */
		end = p + max;
		while (end > p && (*end & 0xc0) == 0x80)
			end--;
	}
	while (p < end) {
		if (*p == '\\') {
			fputs("\\\\", f);
			p++;
		} else if (*p >= 0x20 && *p < 0x7f) {
			putc(*p++, f);
		} else if (*p == '\n' || *p == '\t' || *p == '\r') {
			fputs(*p == '\n' ? "\\n" : *p == '\t' ? "\\t" : "\\r", f);
			p++;
		} else if (*p >= 0x80 && (n = utf8_printable(p)) != 0 && p + n <= end) {
			fwrite(p, 1, n, f);
			p += n;
		} else {
			fprintf(f, "\\x%02x", *p++);
		}
	}
}

void brp_text(FILE *f, const char *s)
{
	brp_text_n(f, s, (size_t)-1);
}

void brp_error(const char *cmd, const char *fmt, ...)
{
	char small[1024], *line = small;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(small) && (line = malloc((size_t)n + 1)) != NULL) {
		va_start(ap, fmt);
		vsnprintf(line, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	if (!line)
		line = small; /* out of memory: the message cut short */
	fputs("brp", stderr);
	if (cmd)
		fprintf(stderr, " %s", cmd);
	fputs(": ", stderr);
	/* a path or a name may hold any byte: one line, and nothing a terminal obeys */
	brp_text(stderr, n < 0 ? fmt : line);
	fputc('\n', stderr);
	if (line != small)
		free(line);
}

int brp_bad_option(const char *cmd, int c, char **argv)
{
	const char *opt = argv[optind - 1];

	if (c == ':') {
		brp_error(cmd, "option '%s' needs a value (see brp %s --help)", opt, cmd);
	} else if (optopt) {
		/* a short option, perhaps inside a cluster such as -xq */
		brp_error(cmd, "unknown option '-%c' (see brp %s --help)", optopt, cmd);
	} else {
		brp_error(cmd, "unknown option '%s' (see brp %s --help)", opt, cmd);
	}
	return BRP_EXIT_USAGE;
}

/* "kzv, stbl or aberto", from the library's list. */
static void profile_list(char *buf, size_t size)
{
	const char *const *p = rpl_rules_profiles();
	size_t n = 0, i, len = 0;

	buf[0] = '\0';
	while (p[n])
		n++;
	for (i = 0; i < n; i++) {
		const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
		int w = snprintf(buf + len, size - len, "%s%s", sep, p[i]);
		if (w < 0 || (size_t)w >= size - len)
			return; /* truncated: still a usable hint */
		len += (size_t)w;
	}
}

int brp_rules_make(const char *cmd, const char *profile, const char *const *sets, int nsets, rpl_rules **out)
{
	rpl_rules *r = NULL;
	int err, i, rc = BRP_EXIT_USAGE;

	*out = NULL;
	if (!profile)
		profile = BRP_DEFAULT_PROFILE;
	err = rpl_rules_new(&r, profile);
	if (err == RPL_ENOTFOUND) {
		char list[128];
		profile_list(list, sizeof list);
		brp_error(cmd, "unknown profile '%s' (known: %s)", profile, list);
		return BRP_EXIT_USAGE;
	}
	if (err < 0) {
		brp_error(cmd, "cannot make the rules: %s", rpl_strerror(err));
		return BRP_EXIT_FAIL;
	}
	for (i = 0; i < nsets; i++) {
		const char *eq = strchr(sets[i], '=');
		char name[64];
		size_t len;

		if (!eq || eq == sets[i]) {
			brp_error(cmd, "--set wants NAME=VALUE, not '%s'", sets[i]);
			goto fail;
		}
		len = (size_t)(eq - sets[i]);
		if (len >= sizeof name) {
			brp_error(cmd, "unknown parameter '%.*s'", (int)len, sets[i]);
			goto fail;
		}
		memcpy(name, sets[i], len);
		name[len] = '\0';
		err = rpl_rules_set(r, name, eq + 1);
		if (err == RPL_ENOMEM) {
			brp_error(cmd, "out of memory");
			rc = BRP_EXIT_FAIL;
			goto fail;
		}
		if (err == RPL_ENOTFOUND) {
			brp_error(cmd, "unknown parameter '%s'", name);
			goto fail;
		}
		if (err < 0) {
			const char *detail = rpl_rules_errmsg(r);
			if (detail && *detail) /* the detail names the parameter */
				brp_error(cmd, "--set: %s", detail);
			else
				brp_error(cmd, "--set %s: %s", sets[i], rpl_strerror(err));
			goto fail;
		}
	}
	*out = r;
	return 0;
fail:
	rpl_rules_free(r);
	return rc;
}

size_t brp_utf8_len(const unsigned char *p)
{
	unsigned c = p[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c < 0x80)
		return c ? 1 : 0;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		lo = c == 0xe0 ? 0xa0 : 0x80; /* not overlong */
		hi = c == 0xed ? 0x9f : 0xbf; /* not a surrogate */
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		lo = c == 0xf0 ? 0x90 : 0x80;
		hi = c == 0xf4 ? 0x8f : 0xbf; /* not past U+10FFFF */
	} else {
		return 0;
	}
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void brp_json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	fputc('"', f);
	while (*p) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				fprintf(f, "\\u%04x", (unsigned)*p);
			} else if (*p < 0x80) {
				fputc(*p, f);
			} else if ((n = brp_utf8_len(p)) != 0) {
				fwrite(p, 1, n, f);
				p += n;
				continue;
			} else {
				/* JSON is UTF-8: a byte that is not, as the export writes it (U+FFFD) */
				fputs("\\ufffd", f);
			}
		}
		p++;
	}
	fputc('"', f);
}

int brp_copy_string(char **buf, size_t *cap, const char *s)
{
	size_t len = strlen(s) + 1;

	if (len > *cap) {
		char *p = realloc(*buf, len);
		if (!p)
			return -1;
		*buf = p;
		*cap = len;
	}
	memcpy(*buf, s, len);
	return 0;
}

int brp_parse_hex(const char *s, uint8_t *out, size_t n)
{
	if (!s || strlen(s) != 2 * n)
		return -1;
	for (size_t i = 0; i < 2 * n; i++) {
		int c = s[i], d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		if (i % 2 == 0)
			out[i / 2] = (uint8_t)(d << 4);
		else
			out[i / 2] |= (uint8_t)d;
	}
	return 0;
}

uint64_t brp_mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

void brp_commit_secrets(uint64_t seed, uint64_t salt, int nplayer_seeds, uint8_t dseed[RPL_DEAL_SEED_SIZE],
                        uint8_t pseeds[][RPL_DEAL_SEED_SIZE])
{
	rpl_rng srng;

	rpl_rng_seed(&srng, brp_mix64(seed ^ salt));
	for (int p = -1; p < nplayer_seeds; p++) {
		uint8_t *out = p < 0 ? dseed : pseeds[p];
		for (int i = 0; i < RPL_DEAL_SEED_SIZE; i += 8) {
			uint64_t w = rpl_rng_next(&srng);
			for (int b = 0; b < 8; b++)
				out[i + b] = (uint8_t)(w >> (8 * b));
		}
	}
}

int brp_search_kind(const char *arg, int *samples)
{
	long n = 0;

	if (strcmp(arg, "search") == 0) {
		*samples = RPL_SEARCH_SAMPLES;
		return 0;
	}
	if (strncmp(arg, "search:", 7) != 0 || !arg[7] || strlen(arg + 7) > 4)
		return -1;
	for (const char *p = arg + 7; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		n = n * 10 + (*p - '0');
	}
	if (n < 1 || n > 1000)
		return -1;
	*samples = (int)n;
	return 0;
}

int brp_threads_run(const char *cmd, int jobs, void *(*fn)(void *), void *arg)
{
	pthread_t *th = calloc((size_t)jobs, sizeof(*th));
	int started = 0;

	if (!th) {
		brp_error(cmd, "out of memory");
		return -1;
	}
	for (; started < jobs; started++)
		if (pthread_create(&th[started], NULL, fn, arg) != 0) {
			brp_error(cmd, "cannot start a thread");
			break;
		}
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
	return started;
}

int brp_players_allowed(const char *cmd, const rpl_rules *rules, int players)
{
	rpl_game *probe = NULL;
	int err = rpl_game_new(&probe, rules, players, 0);

	rpl_game_free(probe);
	if (err == RPL_ENOMEM) {
		brp_error(cmd, "out of memory");
		return BRP_EXIT_FAIL;
	}
	if (err < 0) {
		brp_error(cmd, "the rules do not allow %d players", players);
		return BRP_EXIT_USAGE;
	}
	return -1;
}
