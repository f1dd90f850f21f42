#!/usr/bin/python3
"""Every JSON output of brp, parsed by Python's json module (issue 16, item 5).

    json_outputs.py BRP SRCROOT

Each command's --json output must be JSON objects, one a line, with the keys
its help and docs name; the figures must agree between commands (simulate's
counts with stats', export's with verify's, dump --json with brp dump's text
and brp verify --json). Runs in a scratch directory under LC_ALL=C TZ=UTC.
"""
import json
import os
import subprocess
import sys
import tempfile

BRP, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
SAMPLES = os.path.join(ROOT, "samples")
ENV = dict(os.environ, LC_ALL="C", TZ="UTC")
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def brp(*args, stdin=None, rc=(0,)):
    p = subprocess.run([BRP] + list(args), input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=ENV, cwd=os.getcwd())
    check(p.returncode in rc, "brp %s: exit %d (%s)" % (" ".join(args), p.returncode, p.stderr.decode()[:200]))
    return p.stdout.decode(), p.returncode


def objects(out, what):
    """The JSON objects of out, one a line; every line must be one."""
    got = []
    for i, line in enumerate(out.splitlines(), 1):
        try:
            obj = json.loads(line)
        except ValueError as e:
            check(False, "%s: line %d is not JSON: %s: %r" % (what, i, e, line[:120]))
            continue
        check(isinstance(obj, dict), "%s: line %d is not an object" % (what, i))
        got.append(obj)
    check(got, "%s: no JSON at all" % what)
    return got


def one(out, what):
    got = objects(out, what)
    check(len(got) == 1, "%s: %d objects, not 1" % (what, len(got)))
    return got[0] if got else {}


def has(obj, keys, what):
    missing = [k for k in keys if k not in obj]
    check(not missing, "%s: keys missing: %s" % (what, missing))


def logs():
    out = []
    for d, _, files in os.walk(SAMPLES):
        out += [os.path.join(d, f) for f in files if f.endswith(".brp")]
    return sorted(out)


def notation_from_json(d):
    """The notation's lines rebuilt from dump --json, claims and the seed apart (JSON keeps the claims'
    order and the seed, not where the log holds them: before or after the deals)."""
    def q(s):
        return '"' + "".join(c if 32 <= ord(c) < 127 and c not in '"\\' else
                             ("\\" + c if c in '"\\' else "".join("\\x%02x" % b for b in c.encode()))
                             for c in s) + '"'

    def val(v):
        return "true" if v is True else "false" if v is False else str(v)
    lines = ['[Notation "1"]', "[Profile %s]" % q(d["profile"])]
    lines += ["[Rule %s %s]" % (q(n), q(val(d["rules"][n]))) for n in d["overrides"]]
    lines.append('[Players "%d"]' % len(d["players"]))
    lines += ['[Seat "%d" %s]' % (s, q(n)) for s, n in enumerate(d["players"]) if n is not None]
    lines.append('[FirstDealer "%d"]' % d["first_dealer"])
    if d["start"] is not None:
        lines.append('[Start "%s"]' % d["start"])
    lines += ["[Meta %s %s]" % (q(m["key"]), q(m["value"])) for m in d["meta"]]
    if d["commitment"] is not None:
        lines.append('[Commitment "%s"]' % d["commitment"])
        if d["commitment_version"] == 1:
            lines.append('[CommitmentVersion "1"]')
        lines += ['[PlayerSeed "%s"]' % s for s in d["player_seeds"]]
    # a version other than the one the text's import writes (7 dealt freely, 6 committed)
    if d["format"] in (2, 4, 5) or (d["format"] == 6 and d.get("commitment") is None):
        lines.append('[FormatVersion "%d"]' % d["format"])
    for deal in d["deals"]:
        lines.append("deal %d" % deal["deal"])
        lines += ["hand %d: %s" % (s, " ".join(h)) for s, h in enumerate(deal["hands"])]
        lines += ["morto %d: %s" % (m, " ".join(c)) for m, c in enumerate(deal["mortos"])]
        lines.append("stock: " + " ".join(deal["stock"]))
        for t in deal["turns"]:
            for k in range(0, len(t["decisions"]), 128):  # the writer's longest line
                lines.append("%d. %d: %s" % (t["turn"], t["seat"],
                                             ", ".join(a["action"] for a in t["decisions"][k:k + 128])))
    if d["closed"]:
        lines.append("end recovered" if d["recovered"] else "end")
    return lines


def not_utf8():
    """A name and a path that are not UTF-8: every JSON writer gives UTF-8, each such byte as U+FFFD."""
    with open(os.path.join(SAMPLES, "stbl-2p.txt"), encoding="utf-8") as f:
        text = f.read().replace('[Seat "0" "greedy-0"]', '[Seat "0" "bad\\xffbyte\\xc3"]')
    with open("bad.txt", "w", encoding="utf-8") as f:
        f.write(text)
    path = b"bad-\xe9.brp"  # a Latin-1 file name
    brp("import", "bad.txt", "-o", "bad.brp")
    os.rename("bad.brp", path)
    name = "bad\ufffdbyte\ufffd"
    for args, what in (([b"dump", b"--json", path], "dump --json"),
                       ([b"verify", b"--json", path], "verify --json"),
                       ([b"show", b"--json", b"-d", b"1", b"-t", b"0", path], "show --json"),
                       ([b"view", b"-o", b"bad.html", path], "view")):
        p = subprocess.run([os.fsencode(BRP)] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
        check(p.returncode == 0, "%s of a name not UTF-8: exit %d" % (what, p.returncode))
        if what == "view":
            with open("bad.html", "rb") as f:
                page = f.read()  # the page's data: the JSON of its script (its HTML text is not checked here)
            check(b'"names":["bad\\ufffdbyte\\ufffd",' in page, "view: the name in the page's data is not %r" % name)
            continue
        try:
            obj = json.loads(p.stdout.decode("utf-8"))
        except ValueError as e:
            check(False, "%s of a name not UTF-8: not UTF-8 JSON: %s: %r" % (what, e, p.stdout[:120]))
            continue
        if what == "verify --json":
            check(obj.get("file") == "bad-\ufffd.brp", "verify --json: file %r" % obj.get("file"))
        else:
            check(obj.get("players", [None])[0] == name, "%s: seat 0 is %r" % (what, obj.get("players")))


def main():
    # verify: every verdict, and one for a file that cannot be read
    out, _ = brp("verify", "--json", *logs(), "nosuch.brp", rc=(3,))
    verdicts = {v["file"]: v for v in objects(out, "verify --json")}
    bad = verdicts.get("nosuch.brp", {})
    check(bad.get("verdict") == "unreadable" and bad.get("match_id") is None and bad.get("closed") is False
          and "cannot open" in bad.get("message", ""), "verify --json nosuch.brp: %r" % bad)
    ok = verdicts[os.path.join(SAMPLES, "stbl-2p.brp")]
    check(set(bad) <= set(ok) | {"offset"}, "unreadable verdict keys %s not among a verdict's" % sorted(bad))

    # stats, rules, meld, show: one object each
    has(one(brp("stats", "--json", os.path.join(SAMPLES, "stbl-2p.brp"))[0], "stats --json"),
        ["matches", "deals", "decisions", "verdicts"], "stats --json")
    one(brp("rules", "--json", "kzv")[0], "rules --json")
    one(brp("meld", "--json", "Ks", "As", "JK")[0], "meld --json")
    one(brp("show", "--json", os.path.join(SAMPLES, "stbl-2p.brp"))[0], "show --json")

    # dump --json: the notation's content, and verify's figures
    for path in logs():
        v = verdicts[path]
        out, rc = brp("dump", "--json", path, rc=(0, 3))
        if not out:  # a log whose header cannot be read: no match to write
            check(rc == 3 and v["verdict"] == "malformed", "dump --json %s wrote nothing" % path)
            continue
        d = one(out, "dump --json " + path)
        has(d, ["format", "profile", "rules", "overrides", "players", "first_dealer", "start", "meta",
                "commitment", "commitment_version", "player_seeds", "deals", "claims", "match_claim", "seed", "closed", "recovered",
                "match_id", "error"], "dump --json " + path)
        check((d["error"] is None) == (rc == 0), "dump --json %s: error %r, exit %d" % (path, d["error"], rc))
        check(d["closed"] == v["closed"], "dump --json %s: closed %r, verify says %r" % (path, d["closed"], v["closed"]))
        check(d["match_id"] == v["match_id"], "dump --json %s: match_id differs from verify's" % path)
        if v["verdict"] not in ("malformed", "illegal"):  # verify stops at an illegal decision
            check(len(d["deals"]) == v["deals"], "dump --json %s: %d deals, verify %d" % (path, len(d["deals"]), v["deals"]))
            n = sum(len(t["decisions"]) for deal in d["deals"] for t in deal["turns"])
            check(n == v["decisions"], "dump --json %s: %d decisions, verify %d" % (path, n, v["decisions"]))
        text, _ = brp("dump", path, rc=(0, 3))
        lines = [l for l in text.splitlines() if l]
        check([l for l in lines if not l.startswith(("claim ", "seed "))] == notation_from_json(d),
              "dump --json %s: not the content of brp dump" % path)
        claims = ["claim %s: %d %d" % ("match" if c["deal"] == 0 else c["deal"], c["score"][0], c["score"][1])
                  for c in d["claims"]]
        check([l for l in lines if l.startswith("claim ")] == claims, "dump --json %s: the claims differ" % path)
        seeds = [l[5:] for l in lines if l.startswith("seed ")]
        check(seeds == ([d["seed"]] if d["seed"] else []), "dump --json %s: the seed differs" % path)
        match = [c["score"] for c in d["claims"] if c["deal"] == 0]
        check(d["match_claim"] == (match[-1] if match else None), "dump --json %s: match_claim" % path)

    # simulate, then stats of what it wrote
    s = one(brp("simulate", "--json", "-q", "-n", "3", "--seed", "9", "-o", "corpus")[0], "simulate --json")
    st = one(brp("stats", "--json", "corpus")[0], "stats --json corpus")
    check(s == {"matches": 3, "deals": st["deals"], "decisions": st["decisions"], "output": "corpus"},
          "simulate --json %r against stats %r" % (s, st))

    # export, twice; then merge of two shards
    e = one(brp("export", "--json", "-q", "--sqlite", "all.db", "corpus")[0], "export --json")
    check(e["logs"] == 3 and e["added"] == 3 and e["present"] == 0 and e["verdicts"]["ok"] == 3
          and e["sqlite"] == "all.db" and e["csv"] is None, "export --json: %r" % e)
    e = one(brp("export", "--json", "--sqlite", "all.db", "--csv", "csv", "corpus")[0], "export --json again")
    check(e["added"] == 0 and e["present"] == 3 and e["csv"] == "csv", "export --json again: %r" % e)
    brp("export", "-q", "--sqlite", "a.db", "corpus/match-000001.brp")
    brp("export", "-q", "--sqlite", "b.db", "corpus/match-000002.brp", "corpus/match-000003.brp")
    m = one(brp("merge", "--json", "m.db", "a.db", "b.db")[0], "merge --json")
    check(m == {"output": "m.db", "added": 3, "databases": 2,
                "inputs": [{"file": "a.db", "added": 1}, {"file": "b.db", "added": 2}]}, "merge --json: %r" % m)

    # recover: salvaged, whole, failed
    r = one(brp("recover", "--json", os.path.join(SAMPLES, "disputed", "truncated.brp"), "-o", "r.brp")[0],
            "recover --json")
    check(r["status"] == "salvaged" and r["damaged"] and os.path.exists("r.brp"), "recover --json: %r" % r)
    r = one(brp("recover", "--json", "r.brp", "-o", "r2.brp", rc=(1,))[0], "recover --json whole")
    check(r["status"] == "whole" and not os.path.exists("r2.brp"), "recover --json whole: %r" % r)
    r = one(brp("recover", "--json", os.path.join(SAMPLES, "disputed", "not-a-log.brp"), "-o", "r3.brp",
                rc=(3,))[0], "recover --json failed")
    check(r["status"] == "failed" and r["message"], "recover --json failed: %r" % r)

    # record: one answer a line that holds something
    with open(os.path.join(SAMPLES, "stbl-2p.txt"), encoding="utf-8") as f:
        body = [l for l in f.read().splitlines() if not l.startswith("[")]
    out, _ = brp("record", "--json", "-p", "2", "--first-dealer", "0", "-o", "rec.brp",
                 stdin=("\n".join(body) + "\n").encode())
    answers = objects(out, "record --json")
    check(len(answers) == len([l for l in body if l.strip()]), "record --json: %d answers for %d lines" %
          (len(answers), len([l for l in body if l.strip()])))
    check(all(a["answer"] in ("ok", "kept") for a in answers), "record --json: not all taken: %r" %
          [a for a in answers if a["answer"] not in ("ok", "kept")][:2])

    # import, deal, keygen, sign: one object each (a log: sign), naming what verify --json names alike
    i = one(brp("import", "--json", os.path.join(SAMPLES, "stbl-2p.txt"), "-o", "imp.brp")[0], "import --json")
    v = one(brp("verify", "--json", "imp.brp")[0], "verify --json imp.brp")
    check(i["status"] == "imported" and all(i[k] == v[k] for k in ("deals", "decisions", "closed", "match_id")),
          "import --json %r against verify --json" % i)
    i = one(brp("import", "--json", "nosuch.txt", "-o", "imp2.brp", rc=(3,))[0], "import --json failed")
    check(i["status"] == "failed" and "cannot open" in i["message"], "import --json failed: %r" % i)
    committed = os.path.join(SAMPLES, "committed-v4-4p.brp")
    d = one(brp("deal", "--json", "--log", committed)[0], "deal --json")
    dumped = json.loads(brp("dump", "--json", committed)[0])["deals"][0]
    check(d["commitment"] == d["log_commitment"] and d["deal"] == 1 and
          all(d[k] == dumped[k] for k in ("hands", "mortos", "stock")), "deal --json: %r" % d)
    k = one(brp("keygen", "--json", "-o", "signer")[0], "keygen --json")
    check(k["secret_key"] == "signer.key" and k["public_key"] == "signer.pub" and not k["encrypted"],
          "keygen --json: %r" % k)
    brp("import", "-o", "tosign.brp", os.path.join(SAMPLES, "stbl-2p.txt"))
    out, _ = brp("sign", "--json", "-k", "signer.key", "tosign.brp", "nosuch.brp", rc=(3,))
    s = objects(out, "sign --json")
    check(len(s) == 2 and s[0]["signed"] and not s[1]["signed"] and "cannot open" in s[1]["message"],
          "sign --json: %r" % s)
    v = one(brp("verify", "--json", "-K", "signer.pub", "tosign.brp")[0], "verify --json signed")
    check(all(x["key"] == v["signature"]["key"] == k["key"] and x["fingerprint"] == k["fingerprint"] ==
              v["signature"]["fingerprint"] for x in s), "sign --json names the signer as verify: %r %r" % (s, v))

    not_utf8()

    if failures:
        print("%d failures" % len(failures))
        return 1
    print("every JSON output parses and agrees")
    return 0


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="brp-json.") as tmp:
        os.chdir(tmp)
        sys.exit(main())
