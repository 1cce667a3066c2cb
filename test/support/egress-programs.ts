// Python programs the egress conformance tests run inside the sandbox (or on the host, for the local
// executor): each connects to the egress listener at 127.0.0.1:argv[1], plays one side of a scenario
// and prints what it saw, as JSON, on its last line.

const PRELUDE = `
import hashlib, json, os, select, socket, struct, sys, time
PORT = int(sys.argv[1])

def connect(timeout=30):
    return socket.create_connection(("127.0.0.1", PORT), timeout=timeout)

def read_to_eof(sock):
    chunks = []
    while True:
        data = sock.recv(65536)
        if not data:
            return b"".join(chunks)
        chunks.append(data)

def read_line(sock):
    data = b""
    while not data.endswith(b"\\n"):
        more = sock.recv(1)
        if not more:
            break
        data += more
    return data

def report(value):
    print(json.dumps(value), flush=True)
`;

const program = (body: string): string => `${PRELUDE}\n${body.trim()}\n`;

/** Sends one line, prints the line that comes back, then closes. */
export const ROUND_TRIP = program(`
sock = connect()
sock.sendall(sys.argv[2].encode() + b"\\n")
report(read_line(sock).decode())
sock.close()
`);

/** Sends a question, half-closes, and prints everything received until the server's end. */
export const HALF_CLOSE_FIRST = program(`
sock = connect()
sock.sendall(b"question from the sandbox")
sock.shutdown(socket.SHUT_WR)
report(read_to_eof(sock).decode())
sock.close()
`);

/** Reads until the server half-closes, then still sends a reply and half-closes in turn. */
export const SEND_AFTER_SERVER_END = program(`
sock = connect()
greeting = read_to_eof(sock).decode()
sock.sendall(b"sent after the server's end")
sock.shutdown(socket.SHUT_WR)
report(greeting)
sock.close()
`);

/**
 * Sends argv[2] random bytes as fast as the connection takes them, small send buffer so the kernel
 * hides little, and records how far it got argv[3] seconds in (the server is not reading then).
 */
export const UPLOAD = program(`
total, stall_s = int(sys.argv[2]), float(sys.argv[3])
payload = os.urandom(total)
view = memoryview(payload)
sock = socket.socket()
sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)
sock.connect(("127.0.0.1", PORT))
sock.setblocking(False)
start, sent, sent_during_stall = time.monotonic(), 0, None
while sent < total:
    if sent_during_stall is None and time.monotonic() - start >= stall_s:
        sent_during_stall = sent
    select.select([], [sock], [], 0.05)
    try:
        sent += sock.send(view[sent:sent + 65536])
    except BlockingIOError:
        pass
sock.settimeout(60)
sock.shutdown(socket.SHUT_WR)
reply = read_to_eof(sock).decode()
report({"sentDuringStall": sent if sent_during_stall is None else sent_during_stall,
        "sha256": hashlib.sha256(payload).hexdigest(), "reply": reply})
`);

/** Connects with a small receive buffer, reads nothing for argv[2] seconds, then reads slowly to the end. */
export const SLOW_DOWNLOAD = program(`
stall_s = float(sys.argv[2])
sock = socket.socket()
sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
sock.connect(("127.0.0.1", PORT))
sock.settimeout(60)
time.sleep(stall_s)
digest, received = hashlib.sha256(), 0
while True:
    data = sock.recv(65536)
    if not data:
        break
    digest.update(data)
    received += len(data)
    time.sleep(0.001)
report({"received": received, "sha256": digest.hexdigest()})
`);

/** Opens argv[2] connections at once, sends a line on each, half-closes all, then reads every answer. */
export const MANY_CONNECTIONS = program(`
count = int(sys.argv[2])
socks = [connect() for _ in range(count)]
for index, sock in enumerate(socks):
    sock.sendall(b"connection %d" % index)
    sock.shutdown(socket.SHUT_WR)
report([read_to_eof(sock).decode() for sock in socks])
`);

/** Sends a request and reports how the connection ended: "reset", "eof" or "data". */
export const AWAIT_VERDICT = program(`
sock = connect()
sock.sendall(b"please reset me")
try:
    report("data" if sock.recv(100) else "eof")
except ConnectionResetError:
    report("reset")
`);

/**
 * Waits for the server's "ready", sends a little, waits for the server to confirm it, then aborts the
 * connection with a TCP reset. The confirmation matters: a reset that lands together with unread data
 * reaches Node as a clean end (libuv reports EOF on POLLHUP after a partial read, never reading the
 * ECONNRESET), which is the "program exits" case, tested separately.
 */
export const RESET_CONNECTION = program(`
sock = connect()
read_line(sock)
sock.sendall(b"partial request\\n")
read_line(sock)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
sock.close()
report("reset sent")
`);

/** Sends a little and exits without closing anything: the kernel closes the socket behind it. */
export const EXIT_MID_CONNECTION = program(`
sock = connect()
sock.sendall(b"last words")
report("exiting")
os._exit(0)
`);

/**
 * Opens argv[2] connections, waits a second, then counts which are still open and which the other
 * side closed at once (refused past the stream limit).
 */
export const FLOOD = program(`
count = int(sys.argv[2])
socks = [connect() for _ in range(count)]
time.sleep(1.0)
still_open, closed = 0, 0
for sock in socks:
    sock.setblocking(False)
    try:
        closed += 1 if sock.recv(1) == b"" else 0
    except BlockingIOError:
        still_open += 1
    except ConnectionResetError:
        closed += 1
report({"open": still_open, "closed": closed})
`);

/**
 * Opens argv[2] connections, sends on each, then reports how each one ended ("eof"/"reset"/"timeout"),
 * and whether a new connection is still accepted afterwards.
 */
export const WATCH_CONNECTIONS_END = program(`
count = int(sys.argv[2])
socks = [connect(timeout=20) for _ in range(count)]
for sock in socks:
    sock.sendall(b"hello")
outcomes = []
for sock in socks:
    try:
        outcomes.append("eof" if read_to_eof(sock) == b"" else "data")
    except ConnectionResetError:
        outcomes.append("reset")
    except socket.timeout:
        outcomes.append("timeout")
try:
    connect(timeout=5).close()
    later = "accepted"
except ConnectionRefusedError:
    later = "refused"
report({"outcomes": outcomes, "later": later})
`);
