/*
 * brp view: the stepper. It draws the positions that the engine computed
 * (embedded as JSON in #brp-data, encoding in docs/view.md) and judges
 * nothing: every card, meld arrangement, category, score and verdict comes
 * from the data. No network: this file, the style sheet and the data are
 * all inline.
 */
(function () {
	'use strict';

	var D = JSON.parse(document.getElementById('brp-data').textContent);
	var ALPHA = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz*';
	var RANKS = ['A', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K'];
	var SUITS = 'cdhs';
	var SYMBOLS = ['\u2663', '\u2666', '\u2665', '\u2660'];
	var CATEGORY = ['', 'dirty canastra', 'clean canastra', 'clean 13 canastra', 'clean 14 (real) canastra',
		'dirty 14 canastra'];
	var PHASES = ['no deal', 'to draw', 'to meld or discard', 'to pick up the morto', 'the deal is over',
		'the match is over'];
	var VERDICTS = ['ok', 'illegal', 'mismatch', 'incomplete', 'malformed', 'tampered', 'untrusted'];
	/* how a verdict looks (docs/view.md, "The verdict"): every one but ok is bad */
	function tone(v) {
		return v === 'ok' ? 'good' : 'bad';
	}

	/* the positions, each with every field (the data writes a field only when it changed) */
	var P = [];
	(function expand() {
		var prev = {};
		D.positions.forEach(function (r) {
			var p = Object.assign({}, prev, r);
			p.mv = r.mv || [];
			p.a = r.a;
			p.r = r.r;
			p.x = r.x;
			p.hid = r.hid;
			P.push(p);
			prev = p;
		});
	})();

	/* the review (docs/view.md, "The review"): by position, [cls, uncertain, best, loss, se, accuracy],
	   or [] where the engine chose the decision played too */
	var CLASSES = ['', 'inaccuracy', 'mistake', 'blunder'], MARKS = ['', '?!', '?', '??'];
	var R = {};
	if (D.review)
		D.review.rows.forEach(function (r) {
			R[r[0]] = r.slice(1);
		});

	function el(tag, cls, text) {
		var e = document.createElement(tag);
		if (cls)
			e.className = cls;
		if (text !== undefined)
			e.textContent = text;
		return e;
	}

	function cardId(ch) {
		return ALPHA.indexOf(ch);
	}
	function cardName(id) {
		return id === 52 ? 'JK' : RANKS[id % 13] + SUITS[Math.floor(id / 13)];
	}
	function card(ch, moved) {
		var id = cardId(ch), e;
		if (id === 52) {
			e = el('span', 'card joker', 'JK');
		} else {
			var s = Math.floor(id / 13);
			e = el('span', 'card s-' + SUITS[s]);
			e.appendChild(document.createTextNode(RANKS[id % 13]));
			e.appendChild(el('i', '', SYMBOLS[s]));
		}
		e.setAttribute('data-card', cardName(id));
		if (moved)
			e.classList.add('moved');
		return e;
	}
	function seatName(s) {
		var n = D.names[s];
		return 'seat ' + s + (n ? ' (' + n + ')' : '');
	}

	/* where the decision's cards landed: "2:seat:0:index", "3:0:0:index", "4:side:meld:slot" */
	function movedSet(p) {
		var m = {};
		p.mv.forEach(function (v) {
			m[v.join(':')] = true;
		});
		return m;
	}

	var root = document.getElementById('stepper');
	var idx = 0, revealPile = false;
	var bar = el('nav', 'bar');
	var buttons = {};
	[['home', '\u21e4 deal', 'start of the deal (Home)'], ['up', '\u2191 turn', 'previous turn (\u2191)'],
		['left', '\u2190', 'previous decision (\u2190)'], ['right', '\u2192', 'next decision (\u2192)'],
		['down', 'turn \u2193', 'next turn (\u2193)'], ['end', 'deal \u21e5', 'end of the deal (End)']].forEach(function (b) {
		var e = el('button', '', b[1]);
		e.type = 'button';
		e.title = b[2];
		e.id = 'btn-' + b[0];
		e.setAttribute('aria-label', b[2]);
		e.addEventListener('click', function () {
			move(b[0]);
		});
		buttons[b[0]] = e;
		bar.appendChild(e);
	});
	/* the deal picker: the first position of each deal */
	var picker = el('select');
	picker.id = 'deal-picker';
	picker.setAttribute('aria-label', 'deal');
	P.forEach(function (p, i) {
		if (i === 0 || P[i - 1].d !== p.d) {
			var o = el('option', '', 'deal ' + p.d);
			o.value = i;
			o.setAttribute('data-deal', p.d);
			picker.appendChild(o);
		}
	});
	picker.addEventListener('change', function () {
		go(parseInt(picker.value, 10));
	});
	bar.appendChild(picker);
	var slider = el('input');
	slider.type = 'range';
	slider.id = 'slider';
	slider.min = 0;
	slider.max = Math.max(0, P.length - 1);
	slider.setAttribute('aria-label', 'position');
	slider.addEventListener('input', function () {
		go(parseInt(slider.value, 10));
	});
	bar.appendChild(slider);
	var where = el('span', 'where');
	where.id = 'where';
	bar.appendChild(where);
	var banner = el('div', 'banner');
	banner.id = 'banner';
	var board = el('div', 'board');
	board.id = 'board';
	/* the deal's turns, each a link to its end (BBO's handviewer, lichess's move list) */
	var turns = el('ol', 'turns');
	turns.id = 'turns';
	turns.setAttribute('aria-label', 'turns of the deal');
	var turnsDeal = -1;
	root.appendChild(bar);
	root.appendChild(banner);
	root.appendChild(turns);
	root.appendChild(board);
	if (window.matchMedia && window.matchMedia('(max-width: 600px)').matches) {
		['match-details', 'review'].forEach(function (id) {
			var det = document.getElementById(id);
			if (det)
				det.open = false;
		});
	}
	if (!P.length) {
		bar.hidden = true;
		banner.textContent = D.damage !== undefined ? 'The log is damaged at byte ' + D.damage +
			': nothing decoded before it.' : 'The log holds no deal.';
		banner.className = 'banner refused';
		return;
	}

	/* turn.dead_end: the disputed position is the decision that left the turn no legal end */
	var deadEnd = -1;
	if (D.deadend) {
		for (var q = P.length - 1; q >= 0 && deadEnd < 0; q--)
			if (P[q].k === 1 && P[q].d === D.deadend.d && P[q].t === D.deadend.t && P[q].a === D.deadend.a)
				deadEnd = q;
	}

	function sameTurn(a, b) {
		return P[a].d === P[b].d && P[a].t === P[b].t;
	}
	function target(how) {
		var i = idx, n = P.length;
		switch (how) {
		case 'left': return Math.max(0, i - 1);
		case 'right': return Math.min(n - 1, i + 1);
		case 'up': /* the end of the previous turn */
			while (i > 0 && sameTurn(i - 1, idx))
				i--;
			return Math.max(0, i - 1);
		case 'down': /* the end of this turn, or of the next */
			if (i + 1 < n && sameTurn(i + 1, i)) {
				while (i + 1 < n && sameTurn(i + 1, idx))
					i++;
				return i;
			}
			i = Math.min(n - 1, i + 1);
			while (i + 1 < n && sameTurn(i + 1, i))
				i++;
			return i;
		case 'home': /* the deal as dealt, or the previous deal's */
			if (P[i].k === 0 && i > 0)
				i--;
			while (i > 0 && P[i - 1].d === P[i].d)
				i--;
			return i;
		case 'end': /* the deal's last position, or the next deal's */
			if (i + 1 < n && P[i + 1].d !== P[i].d)
				i++;
			while (i + 1 < n && P[i + 1].d === P[i].d)
				i++;
			return i;
		}
		return i;
	}
	function move(how) {
		go(target(how));
	}

	function fragment(p) {
		return '#d=' + p.d + '&t=' + p.t + '&n=' + p.n;
	}
	/* the last position at or before deal d, turn t, decision n (as brp show --deal --turn --decision) */
	function fromFragment(h) {
		var m = /^#?d=(\d+)(?:&t=(\d+))?(?:&n=(\d+))?$/.exec(h || '');
		if (!m)
			return -1;
		var d = +m[1], t = m[2] === undefined ? Infinity : +m[2], n = m[3] === undefined ? Infinity : +m[3];
		var best = -1;
		for (var i = 0; i < P.length; i++) {
			var p = P[i];
			if (p.d < d || (p.d === d && (p.t < t || (p.t === t && p.n <= n))))
				best = i;
			else
				break;
		}
		return best;
	}

	function drawHand(p, s, moved) {
		var h = p['h' + s], box = el('div', 'hand');
		var head = el('h3', '', seatName(s) + ', side ' + (s % 2));
		box.setAttribute('data-seat', s);
		if (p.g[1] === s && p.g[0] >= 1 && p.g[0] <= 3) {
			box.classList.add('to-move');
			head.appendChild(el('span', 'tag', PHASES[p.g[0]]));
		}
		if (p.s === s)
			box.classList.add('decided');
		box.appendChild(head);
		var cards = el('div', 'cards');
		if (typeof h === 'number') {
			box.setAttribute('data-count', h);
			box.classList.add('hidden');
			cards.appendChild(el('span', 'count', h + ' cards'));
			for (var k = 0; k < h; k++)
				cards.appendChild(el('span', 'card back'));
		} else {
			box.setAttribute('data-count', h.length);
			head.appendChild(el('span', 'n', h.length + ' cards'));
			for (var i = 0; i < h.length; i++)
				cards.appendChild(card(h[i], moved['2:' + s + ':0:' + i]));
		}
		box.appendChild(cards);
		return box;
	}

	function drawSide(p, side, moved) {
		var box = el('div', 'side');
		var seats = D.players === 4 ? 'seats ' + side + ' and ' + (side + 2) : 'seat ' + side;
		box.setAttribute('data-side', side);
		var head = el('h3', '', 'Side ' + side + ' (' + seats + ')');
		if (p.tt[2 + side])
			head.appendChild(el('span', 'tag vul', 'vulnerable'));
		box.appendChild(head);
		var melds = p['m' + side];
		if (!melds.length)
			box.appendChild(el('p', 'none', 'no melds'));
		melds.forEach(function (m, mi) {
			var e = el('div', 'meld');
			e.setAttribute('data-side', side);
			e.setAttribute('data-meld', mi);
			e.setAttribute('data-category', m[2]);
			if (m[2])
				e.classList.add('canastra', 'cat-' + m[2]);
			var row = el('div', 'run');
			for (var j = 0; j < m[0].length; j++) {
				var slot = el('span', 'slot');
				var c = card(m[0][j], moved['4:' + side + ':' + mi + ':' + j]);
				slot.appendChild(c);
				if (m[1][j] !== '.') {
					c.classList.add('wild');
					var as = cardId(m[1][j]);
					c.setAttribute('data-as', cardName(as));
					c.title = 'wild, stands for ' + cardName(as);
					slot.appendChild(el('em', 'as', '=' + RANKS[as % 13] + SYMBOLS[Math.floor(as / 13)]));
				}
				row.appendChild(slot);
			}
			e.appendChild(row);
			var wild = m[1].replace(/\./g, '').length;
			var label = (m[2] ? CATEGORY[m[2]] : (wild ? 'dirty' : 'clean')) + ', ' + m[0].length + ' cards, ' +
				m[3] + ' points' + (m[2] ? ', bonus ' + m[4] : '');
			e.appendChild(el('div', 'label', label));
			box.appendChild(e);
		});
		return box;
	}

	function drawMiddle(p, moved) {
		var box = el('div', 'middle');
		var pile = el('div', 'pile');
		var c = p.c, cards = p.p, shown = c[1];
		pile.id = 'pile';
		pile.setAttribute('data-count', c[0]);
		pile.appendChild(el('h3', '', 'Pile, ' + c[0] + ' cards'));
		if (cards.length)
			pile.setAttribute('data-top', cardName(cardId(cards[cards.length - 1])));
		var row = el('div', 'cards');
		var first = 0;
		if (shown < c[0] && !(revealPile && D.seat < 0))
			first = cards.length - shown;
		if (first > 0 || (D.seat >= 0 && shown < c[0]))
			row.appendChild(el('span', 'count', (c[0] - shown) + ' face down'));
		for (var i = first; i < cards.length; i++) {
			var ce = card(cards[i], moved['3:' + p.s + ':0:' + i]);
			if (i === cards.length - 1) {
				ce.classList.add('top');
				ce.title = 'the top of the pile';
			}
			row.appendChild(ce);
		}
		pile.appendChild(row);
		if (shown < c[0] && D.seat < 0) {
			var lab = el('label', 'toggle');
			var cb = el('input');
			cb.type = 'checkbox';
			cb.id = 'reveal-pile';
			cb.checked = revealPile;
			cb.addEventListener('change', function () {
				revealPile = cb.checked;
				render();
			});
			lab.appendChild(cb);
			lab.appendChild(document.createTextNode(' director: reveal the whole pile (players see the top card only)'));
			pile.appendChild(lab);
		}
		box.appendChild(pile);
		var stock = el('p', 'stock');
		stock.id = 'stock';
		stock.setAttribute('data-stock', c[2]);
		stock.textContent = 'Stock: ' + c[2] + ' cards';
		box.appendChild(stock);
		[0, 1].forEach(function (m) {
			var st = c[3 + m], e = el('p', 'morto');
			e.setAttribute('data-morto', m);
			e.setAttribute('data-state', st === -1 ? 'untouched' : st === 2 ? 'stock' : 'taken');
			e.textContent = 'Morto ' + m + ': ' + (st === -1 ? 'on the table' : st === 2 ? 'turned into stock' :
				'taken by side ' + st);
			box.appendChild(e);
		});
		return box;
	}

	function drawScore(p) {
		var t = el('table', 'score');
		t.id = 'score';
		var over = p.g[0] >= 4;
		var head = el('tr');
		['', 'melded', 'bonus', 'going out', 'hand', 'morto', over ? 'deal' : 'deal so far', 'match'].forEach(
			function (h) {
				head.appendChild(el('th', '', h));
			});
		if (p.cl)
			head.appendChild(el('th', '', 'claimed'));
		t.appendChild(head);
		[0, 1].forEach(function (side) {
			var r = el('tr'), s = p.sc[side];
			r.setAttribute('data-side', side);
			r.appendChild(el('th', '', 'side ' + side));
			for (var k = 0; k < 6; k++) {
				/* null: a seat's page does not show the points left in the hands during the deal */
				var td = el('td', k === 5 ? 'total' : '', s[k] === null ? 'hidden' : String(s[k]));
				r.appendChild(td);
			}
			var m = el('td', 'match', String(p.tt[side]));
			r.appendChild(m);
			r.setAttribute('data-total', s[5] === null ? 'hidden' : s[5]);
			r.setAttribute('data-match', p.tt[side]);
			if (p.cl) {
				var cl = el('td', 'claimed', String(p.cl[side]));
				if (p.cl[side] !== s[5]) {
					r.classList.add('differs');
					cl.textContent = p.cl[side] + ' (recomputed ' + s[5] + ')';
				}
				r.appendChild(cl);
			}
			t.appendChild(r);
		});
		if (p.mc) {
			var r = el('tr', 'match-claim');
			r.appendChild(el('th', '', 'match claimed'));
			var td = el('td', '', p.mc[0] + ' to ' + p.mc[1] + (p.mc[0] !== p.tt[0] || p.mc[1] !== p.tt[1] ?
				' (recomputed ' + p.tt[0] + ' to ' + p.tt[1] + ')' : ''));
			td.colSpan = 7;
			r.appendChild(td);
			t.appendChild(r);
		}
		return t;
	}

	/* the list of the deal's turns: rebuilt when the deal changes, the current turn marked */
	function drawTurns(p) {
		if (turnsDeal !== p.d) {
			turnsDeal = p.d;
			turns.textContent = '';
			for (var i = 0; i < P.length; i++) {
				var q = P[i];
				if (q.d !== p.d || q.k === 0 || (i + 1 < P.length && sameTurn(i + 1, i)))
					continue;
				/* i is the end of its turn: its decisions are those before it in the turn */
				var first = i;
				while (first > 0 && sameTurn(first - 1, i))
					first--;
				var li = el('li', 'turn');
				var a = el('a', '', q.t + '. seat ' + q.s + ': ');
				for (var j = first; j <= i; j++) {
					if (j > first)
						a.appendChild(document.createTextNode(', '));
					a.appendChild(decisionText(j));
				}
				a.href = fragment(q);
				a.setAttribute('data-index', i);
				a.setAttribute('data-turn', q.t);
				if (q.k === 2)
					li.classList.add('refused');
				li.appendChild(a);
				turns.appendChild(li);
			}
		}
		Array.prototype.forEach.call(turns.querySelectorAll('li'), function (li) {
			var on = +li.firstChild.getAttribute('data-turn') === p.t;
			li.classList.toggle('current', on);
			if (on && li.scrollIntoView && turns.scrollHeight > turns.clientHeight)
				turns.scrollTop = li.offsetTop - turns.offsetTop - turns.clientHeight / 2;
		});
	}

	/* a decision in the list of turns; one the review marks has its class and symbol, and is a way to it */
	function decisionText(j) {
		var r = R[j], span = el('span', 'dec', P[j].a);
		if (r && r[0] > 0) {
			span.classList.add('rv', 'rv-' + CLASSES[r[0]]);
			span.setAttribute('data-index', j);
			span.setAttribute('data-class', CLASSES[r[0]]);
			span.title = CLASSES[r[0]] + ': better ' + r[2];
			span.appendChild(el('b', 'rv-sym', MARKS[r[0]]));
		}
		return span;
	}

	/* at a reviewed decision: its mark, the engine's better decision and the loss (as brp review says them) */
	function reviewNote(p) {
		var r = R[idx];
		if (!r || p.k !== 1)
			return null;
		var note = el('div', 'review-note');
		note.id = 'review-note';
		if (!r.length) {
			note.classList.add('rv-best');
			note.appendChild(el('span', '', 'Reviewed: the engine\'s choice too.'));
			return note;
		}
		if (r[0] > 0) {
			note.classList.add('rv', 'rv-' + CLASSES[r[0]]);
			note.setAttribute('data-class', CLASSES[r[0]]);
			note.appendChild(el('b', 'rv-sym', MARKS[r[0]]));
			note.appendChild(el('span', 'rv-class', ' ' + CLASSES[r[0]] + (r[1] ? ' (uncertain)' : '') + '. '));
		}
		note.appendChild(el('span', '', 'Better: '));
		note.appendChild(el('code', 'rv-better', r[2]));
		note.appendChild(el('span', 'rv-loss', ', ' + r[3].toFixed(1) + ' \u00b1 ' + r[4].toFixed(1) +
			' points lost; accuracy ' + r[5].toFixed(1) + '%.'));
		return note;
	}

	/* the cards a refused decision names, outlined in the hand that holds them (each card once) */
	function refusedCards(p) {
		var want = {};
		if (p.k !== 2 || p.hid)
			return want;
		p.a.split(' ').forEach(function (w) {
			if (/^(?:A|[2-9]|10|J|Q|K)[cdhs]$|^JK$/.test(w))
				want[w] = (want[w] || 0) + 1;
		});
		return want;
	}

	function render() {
		var p = P[idx], moved = movedSet(p);
		picker.value = String(P.reduce(function (b, q, i) {
			return b < 0 && q.d === p.d ? i : b;
		}, -1));
		drawTurns(p);
		where.textContent = 'position ' + (idx + 1) + ' of ' + P.length + ' \u00b7 deal ' + p.d + ', turn ' + p.t +
			', decision ' + p.n;
		slider.value = idx;
		banner.className = 'banner';
		banner.textContent = '';
		var what;
		if (p.k === 0) {
			what = 'Deal ' + p.d + ', dealt by seat ' + p.g[3] + '.';
		} else {
			what = 'Deal ' + p.d + ', turn ' + p.t + ', decision ' + p.n + ': ' + seatName(p.s) + ' ';
		}
		banner.appendChild(el('span', 'what', what));
		if (p.k !== 0)
			banner.appendChild(el('code', 'decision', p.a));
		if (p.k === 2 && p.r === 'turn.dead_end' && D.deadend) {
			banner.classList.add('refused');
			banner.appendChild(el('span', 'illegal', ' is refused, after ' + D.deadend.a +
				' (the disputed decision, before this one) left the turn no legal end: '));
			banner.appendChild(el('code', 'rule', p.r));
			banner.appendChild(el('span', 'message', ' ' + p.x));
		} else if (p.k === 2) {
			banner.classList.add('refused');
			banner.appendChild(el('span', 'illegal', ' is illegal: '));
			banner.appendChild(el('code', 'rule', p.r));
			banner.appendChild(el('span', 'message', p.hid ?
				' (a decision of another seat: its cards never left that hand, and are not shown)' : ' ' + p.x));
		}
		if (idx === deadEnd) {
			banner.classList.add('refused');
			banner.appendChild(el('span', 'illegal', ' left the turn no legal end: '));
			banner.appendChild(el('code', 'rule', 'turn.dead_end'));
			banner.appendChild(el('span', 'message', ' ' + (P[P.length - 1].hid ? 'a later decision of the turn was refused' :
				P[P.length - 1].x)));
		}
		/* the running verdict; where the log stops (damaged, incomplete), the log's own */
		var sofar = VERDICTS[p.g[4]];
		if (idx === P.length - 1 && (D.verdict === 'malformed' || D.verdict === 'incomplete'))
			sofar = D.verdict;
		banner.setAttribute('data-so-far', sofar);
		banner.appendChild(el('span', 'so-far v-' + sofar + ' tone-' + tone(sofar), 'verdict so far: ' + sofar));
		if ((sofar === 'tampered' || sofar === 'untrusted') && (idx === 0 || P[idx - 1].g[4] !== p.g[4])) {
			banner.classList.add('refused');
			banner.appendChild(el('span', 'trust', sofar === 'tampered' ?
				' From here on the log was changed after it was signed: no valid signature vouches for these bytes.' :
				' From here on no ' + (D.keys ? 'trusted ' : '') + 'signature vouches for the log\'s bytes.'));
		}
		if (D.verdict === 'incomplete' && idx === P.length - 1)
			banner.appendChild(el('span', 'damage', ' The log stops here.'));
		if (D.mismatch && p.g[0] >= 4 && (p.d === D.mismatch.deal || (D.mismatch.deal === 0 && idx === P.length - 1))) {
			banner.classList.add('mismatch');
			banner.appendChild(el('span', 'claim', ' The claimed score differs: side ' + D.mismatch.side + ' claimed ' +
				D.mismatch.claimed + ', recomputed ' + D.mismatch.computed + '.'));
		}
		if (D.dealing && (D.dealing.deal === 0 ? idx === 0 : p.d === D.dealing.deal && p.k === 0 && p.g[0] < 4)) {
			banner.classList.add('mismatch');
			banner.appendChild(el('span', 'dealing', D.dealing.deal === 0 ?
				' The revealed seed is not the one the header commits to: no deal is proven fair.' :
				' This layout is not the one the committed seed derives for deal ' + D.dealing.deal +
				(document.getElementById('dealing-diff') ? ': the summary lists the cards that differ.' : '.')));
		}
		if (D.damage !== undefined && idx === P.length - 1)
			banner.appendChild(el('span', 'damage', ' The log is damaged at byte ' + D.damage +
				': nothing after this position could be read.'));
		var note = reviewNote(p);
		if (note)
			banner.appendChild(note);
		board.textContent = '';
		var hands = el('section', 'hands');
		var refused = refusedCards(p);
		for (var s = 0; s < D.players; s++) {
			var hand = drawHand(p, s, moved);
			if (s === p.s && p.k === 2)
				Array.prototype.forEach.call(hand.querySelectorAll('.card[data-card]'), function (c) {
					if (refused[c.dataset.card] > 0) {
						refused[c.dataset.card]--;
						c.classList.add('refused-card');
						c.title = 'in the refused decision';
					}
				});
			hands.appendChild(hand);
		}
		var sides = el('section', 'sides');
		sides.appendChild(drawSide(p, 0, moved));
		sides.appendChild(drawSide(p, 1, moved));
		var mid = el('section', 'table');
		mid.appendChild(drawMiddle(p, moved));
		var wrap = el('div', 'score-wrap');
		wrap.appendChild(drawScore(p));
		mid.appendChild(wrap);
		board.appendChild(hands);
		board.appendChild(mid);
		board.appendChild(sides);
		drawCourse(p);
		buttons.left.disabled = buttons.home.disabled = buttons.up.disabled = idx === 0;
		buttons.right.disabled = buttons.end.disabled = buttons.down.disabled = idx === P.length - 1;
	}

	/* the current deal's course chart framed, a line at the current turn (the chart is the C side's SVG) */
	function drawCourse(p) {
		var on = document.querySelector('#course .on'), fig = document.getElementById('course-d' + p.d);
		if (on && on !== fig)
			on.classList.remove('on');
		if (!fig)
			return;
		var svg = fig.querySelector('svg'), x0 = +svg.dataset.x0;
		var x = x0 + Math.min(p.t, +svg.dataset.turns) * (svg.dataset.x1 - x0) / svg.dataset.turns;
		fig.classList.add('on');
		var cursor = svg.querySelector('.cursor');
		cursor.setAttribute('d', cursor.getAttribute('d').replace(/^M[\d.]+/, 'M' + x));
	}

	function go(i) {
		if (!(i >= 0 && i < P.length))
			return;
		idx = i;
		render();
		var h = fragment(P[idx]);
		if (location.hash !== h)
			history.replaceState(null, '', h);
	}

	document.addEventListener('keydown', function (e) {
		var keys = { ArrowLeft: 'left', ArrowRight: 'right', ArrowUp: 'up', ArrowDown: 'down', Home: 'home',
			End: 'end' };
		if (e.altKey || e.ctrlKey || e.metaKey || !keys[e.key])
			return;
		if (e.target === slider && (e.key === 'ArrowLeft' || e.key === 'ArrowRight'))
			return; /* the slider steps itself */
		e.preventDefault();
		move(keys[e.key]);
	});
	/* a marked decision of the list of turns opens its own position, not its turn's end */
	turns.addEventListener('click', function (e) {
		var m = e.target.closest && e.target.closest('.rv[data-index]');
		if (!m)
			return;
		e.preventDefault();
		go(+m.getAttribute('data-index'));
	});
	window.addEventListener('hashchange', function () {
		var i = fromFragment(location.hash);
		if (i >= 0 && i !== idx)
			go(i);
	});

	/* where the page opens: the link's position, else the dispute, else the start */
	var start = fromFragment(location.hash);
	if (start < 0 && deadEnd >= 0)
		start = deadEnd;
	if (start < 0 && D.open >= 0)
		start = D.open;
	if (start < 0 && D.mismatch) {
		for (var i = 0; i < P.length; i++)
			if ((D.mismatch.deal === 0 || P[i].d === D.mismatch.deal) && P[i].g[0] >= 4)
				start = i;
	}
	if (start < 0 && D.dealing) {
		for (var j = 0; j < P.length && start < 0; j++)
			if (D.dealing.deal === 0 || P[j].d === D.dealing.deal)
				start = j;
	}
	if (start < 0 && D.damage !== undefined)
		start = P.length - 1;
	go(start < 0 ? 0 : start);
	/* for scripts (the browser tests): the current position and a way to move */
	window.brpView = {
		count: function () { return P.length; },
		index: function () { return idx; },
		go: go,
		position: function () { return { d: P[idx].d, t: P[idx].t, n: P[idx].n, k: P[idx].k }; }
	};
})();
