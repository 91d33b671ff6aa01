# ingest.py PORTFILE OUTDIR: a stand-in for a profiling backend's ingest API (Pyroscope's
# POST /ingest?name=&from=&until=&format=pprof, multipart fields "profile" and
# "sample_type_config"), for the fleet case: listens on 127.0.0.1 (its port written to
# PORTFILE), takes one request, checks its shape, saves the profile as OUTDIR/received.pb.gz,
# describes what it saw in OUTDIR/request.txt, and answers 200 when the shape is right, else 400.
import email.parser, email.policy, json, os, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlsplit

portfile, outdir = sys.argv[1], sys.argv[2]


class Ingest(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        bad = []
        u = urlsplit(self.path)
        q = {k: v[0] for k, v in parse_qs(u.query).items()}
        if u.path != "/ingest":
            bad.append("path " + u.path)
        for k in ("name", "from", "until"):
            if not q.get(k):
                bad.append("no " + k)
        if q.get("format") != "pprof":
            bad.append("format " + str(q.get("format")))
        if not (q.get("from", "").isdigit() and q.get("until", "").isdigit() and int(q["from"]) <= int(q["until"])):
            bad.append("from/until not UNIX seconds in order")
        ctype = self.headers.get("Content-Type", "")
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        fields = {}
        if ctype.startswith("multipart/form-data"):
            msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
                b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + body)
            for part in msg.iter_parts():
                fields[part.get_param("name", header="content-disposition")] = part.get_payload(decode=True)
        else:
            bad.append("content type " + ctype)
        prof = fields.get("profile", b"")
        if prof[:2] != b"\x1f\x8b":
            bad.append("no gzipped profile field")
        types = []
        try:
            cfg = json.loads(fields.get("sample_type_config", b"{}"))
            for t, c in cfg.items():
                if c.get("units") not in ("samples", "objects", "bytes") or c.get("aggregation") not in ("sum", "average"):
                    bad.append("sample type config of " + t)
                types.append(t)
        except ValueError:
            bad.append("sample_type_config is not JSON")
        with open(outdir + "/received.pb.gz", "wb") as f:
            f.write(prof)
        with open(outdir + "/request.txt", "w") as f:
            print("POST", u.path, "name=" + q.get("name", ""), "format=" + str(q.get("format")), file=f)
            print("fields:", " ".join(sorted(k for k in fields if k)), file=f)
            print("sample types configured:", " ".join(types), file=f)
            print("bad:", ", ".join(bad) if bad else "none", file=f)
        self.send_response(400 if bad else 200)
        self.end_headers()
        self.wfile.write(b"bad request\n" if bad else b"ok\n")


server = HTTPServer(("127.0.0.1", 0), Ingest)
with open(portfile + ".tmp", "w") as f:
    f.write(str(server.server_port))
os.rename(portfile + ".tmp", portfile)
server.handle_request()
