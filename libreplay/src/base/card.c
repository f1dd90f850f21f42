/* Cards: parsing and formatting. */
#include <string.h>

#include "libreplay/card.h"

static const char *const rank_text[14] = { "", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K" };
static const char suit_letter[4] = { 'c', 'd', 'h', 's' };
static const char *const suit_symbol[4] = { "\xe2\x99\xa3", "\xe2\x99\xa6", "\xe2\x99\xa5", "\xe2\x99\xa0" };

/* "Ac" .. "Ks" then "JK": the canonical names, in card id order. */
static const char *const card_names[RPL_NFACES] = {
	"Ac", "2c", "3c", "4c", "5c",  "6c", "7c", "8c", "9c", "10c", "Jc", "Qc", "Kc",  "Ad", "2d", "3d", "4d", "5d",
	"6d", "7d", "8d", "9d", "10d", "Jd", "Qd", "Kd", "Ah", "2h",  "3h", "4h", "5h",  "6h", "7h", "8h", "9h", "10h",
	"Jh", "Qh", "Kh", "As", "2s",  "3s", "4s", "5s", "6s", "7s",  "8s", "9s", "10s", "Js", "Qs", "Ks", "JK",
};

int rpl_card_copies(rpl_card c)
{
	if (c > RPL_JOKER)
		return 0;
	return c == RPL_JOKER ? 4 : 2;
}

const char *rpl_card_name(rpl_card c)
{
	return c < RPL_NFACES ? card_names[c] : "??";
}

static int lower(int ch)
{
	return (ch >= 'A' && ch <= 'Z') ? ch + 32 : ch;
}

int rpl_card_parse(const char *text, size_t len, rpl_card *out)
{
	size_t i = 0;
	int rank = 0, suit = -1;

	if (!text || !out || len == 0)
		return RPL_EINVAL;
	if (len == 2 && lower(text[0]) == 'j' && lower(text[1]) == 'k') {
		*out = RPL_JOKER;
		return RPL_OK;
	}
	switch (lower(text[0])) {
	case 'a':
		rank = 1;
		i = 1;
		break;
	case 't':
		rank = 10;
		i = 1;
		break;
	case 'j':
		rank = 11;
		i = 1;
		break;
	case 'q':
		rank = 12;
		i = 1;
		break;
	case 'k':
		rank = 13;
		i = 1;
		break;
	case '1':
		if (len >= 2 && text[1] == '0') {
			rank = 10;
			i = 2;
		}
		break;
	default:
		if (text[0] >= '2' && text[0] <= '9') {
			rank = text[0] - '0';
			i = 1;
		}
		break;
	}
	if (rank == 0 || i >= len)
		return RPL_EINVAL;
	if (len - i == 1) {
		const char *p = memchr(suit_letter, lower(text[i]), 4);
		if (p)
			suit = (int)(p - suit_letter);
	} else if (len - i == 3) {
		for (int s = 0; s < 4; s++)
			if (memcmp(text + i, suit_symbol[s], 3) == 0)
				suit = s;
	}
	if (suit < 0)
		return RPL_EINVAL;
	*out = RPL_CARD_MAKE(suit, rank);
	return RPL_OK;
}

size_t rpl_card_format(rpl_card c, char *buf, size_t size, unsigned flags)
{
	char tmp[8];
	size_t n;

	if (c >= RPL_NFACES) {
		strcpy(tmp, "??");
	} else if (c == RPL_JOKER || !(flags & RPL_CARD_SYMBOLS)) {
		strcpy(tmp, card_names[c]);
	} else {
		strcpy(tmp, rank_text[RPL_CARD_RANK(c)]);
		strcat(tmp, suit_symbol[RPL_CARD_SUIT(c)]);
	}
	n = strlen(tmp);
	if (buf && size > 0) {
		size_t k = n < size - 1 ? n : size - 1;
		memcpy(buf, tmp, k);
		buf[k] = '\0';
	}
	return n;
}
