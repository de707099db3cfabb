package dev.muster.common.http;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SSLSocket;

/**
 * Serves the requests of one connection, one after another, on the connection's own (virtual) thread: read a
 * request, call the handler, write its answer, and again while both sides keep the connection alive. Owned by that
 * thread alone; nothing here is shared.
 *
 * <p>What it reads: a request line, headers up to {@link #MAX_HEADER_BYTES}, and a body given by Content-Length or
 * chunked transfer coding, at most {@code maxBodyBytes}; the body's array grows as its bytes arrive (a declared length
 * alone never allocates it). {@code Expect: 100-continue} is answered before the body is read. HTTP/1.1 keeps the connection
 * unless {@code Connection: close}; HTTP/1.0 only with {@code Connection: keep-alive}. Anything it cannot serve is
 * refused with the status that names the problem (400, 413, 417, 431, 501, 505) and the connection is closed
 * gracefully: the answer is sent, then what the client still sends is read and dropped for a moment, so the client
 * reads the refusal instead of a reset.
 */
final class Http1Connection {
    /** Longest line (request line or header): the read buffer grows to this from {@link #FIRST_BUFFER}. */
    static final int MAX_LINE = 16 * 1024;
    /** A connection's read buffer to begin with: a request head of Go's client is ~200 bytes, a body is read past it. */
    static final int FIRST_BUFFER = 4 * 1024;
    static final int MAX_HEADER_BYTES = 64 * 1024;
    /** A declared body's array to begin with, at most; it doubles as the bytes arrive, up to the declared length. */
    static final int FIRST_BODY_BUFFER = 64 * 1024;
    /** Answers of up to this size are written in one piece with their head: one TCP segment for small ones. */
    private static final int ONE_WRITE = 32 * 1024;
    /** After a refusal, what the client still sends is read and dropped up to this much, for up to {@link #LINGER_MILLIS}. */
    private static final int DRAIN_BYTES = 256 * 1024;
    private static final int LINGER_MILLIS = 1_000;
    private static final byte[] CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private final Socket socket;
    private final ConnectionPhase phase;
    private final Http1Handler handler;
    private final long maxBodyBytes;
    private final InputStream in;
    private final OutputStream out;
    private java.security.cert.X509Certificate peer; // the client's certificate, read once the handshake is done
    private boolean peerRead;
    private byte[] buf = new byte[FIRST_BUFFER];
    private int pos;
    private int limit;

    Http1Connection(Socket socket, ConnectionPhase phase, Http1Handler handler, long maxBodyBytes) throws IOException {
        this.socket = socket;
        this.phase = phase;
        this.handler = handler;
        this.maxBodyBytes = maxBodyBytes;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    /** Serves requests until the client closes, a request asks to close, the idle timeout passes or the socket fails. */
    void serve() throws IOException {
        try {
            while (serveOne()) {
                // next request on the same connection
            }
        } catch (Refusal r) {
            refuse(r.status, r.getMessage());
        } catch (SocketTimeoutException | EOFException idleOrGone) {
            // an idle keep-alive connection timed out, or the client closed mid-request: nothing to answer
        }
    }

    /** One request; false when the connection must not carry another. */
    private boolean serveOne() throws IOException {
        String requestLine = readLine(true);
        for (int blank = 0; requestLine != null && requestLine.isEmpty() && blank < 8; blank++) {
            requestLine = readLine(true); // RFC 9112 §2.2: ignore empty lines before a request line
        }
        if (requestLine == null) {
            return false;
        }
        int sp1 = requestLine.indexOf(' ');
        int sp2 = requestLine.lastIndexOf(' ');
        if (sp1 <= 0 || sp2 == sp1) {
            throw new Refusal(400, "malformed request line \"" + printable(requestLine) + "\"; expected METHOD /path HTTP/1.1");
        }
        String method = requestLine.substring(0, sp1);
        String version = requestLine.substring(sp2 + 1);
        if (!version.equals("HTTP/1.1") && !version.equals("HTTP/1.0")) {
            throw new Refusal(505, "HTTP version \"" + printable(version) + "\" not supported; this server speaks HTTP/1.1");
        }
        boolean http11 = version.equals("HTTP/1.1");
        String path = path(requestLine.substring(sp1 + 1, sp2));
        Map<String, String> headers = readHeaders();
        phase.body();

        String connection = headers.get("connection");
        boolean keepAlive = http11 ? !hasToken(connection, "close") : hasToken(connection, "keep-alive");
        String transferEncoding = headers.get("transfer-encoding");
        String contentLength = headers.get("content-length");
        long length = 0;
        boolean chunked = false;
        if (transferEncoding != null) {
            if (contentLength != null) {
                throw new Refusal(400, "both Transfer-Encoding and Content-Length given; send one");
            }
            if (!transferEncoding.equalsIgnoreCase("chunked")) {
                throw new Refusal(501, "Transfer-Encoding \"" + printable(transferEncoding) + "\" not supported; send Content-Length or chunked");
            }
            chunked = true;
        } else if (contentLength != null) {
            length = contentLength(contentLength);
        }
        if (length > maxBodyBytes) {
            return refuseTooLarge(method, path, headers, http11);
        }
        String expect = headers.get("expect");
        if (expect != null) {
            if (!expect.equalsIgnoreCase("100-continue")) {
                throw new Refusal(417, "Expect \"" + printable(expect) + "\" not supported; only 100-continue is");
            }
            if (http11 && (chunked || length > 0)) {
                out.write(CONTINUE);
                out.flush();
            }
        }
        byte[] body = chunked ? readChunked() : readBody((int) length);
        if (body == null) {
            return refuseTooLarge(method, path, headers, http11);
        }
        Http1Response response;
        phase.busy();
        try {
            response = handler.handle(new Http1Request(method, path, headers, body, peer()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EOFException("server closing");
        } catch (Exception e) {
            response = Http1Response.text(500, "internal error answering " + method + " " + path + ": " + e + "\n");
            keepAlive = false;
        }
        phase.idle(); // from here the connection waits for its client: to read the answer, then to send the next request
        answer(response, method, http11, keepAlive);
        return keepAlive;
    }

    private Map<String, String> readHeaders() throws IOException {
        Map<String, String> headers = new HashMap<>(16);
        int bytes = 0;
        for (String line = readLine(false); !line.isEmpty(); line = readLine(false)) {
            bytes += line.length() + 2;
            if (bytes > MAX_HEADER_BYTES) {
                throw new Refusal(431, "request headers exceed " + MAX_HEADER_BYTES + " bytes");
            }
            int colon = line.indexOf(':');
            if (line.charAt(0) == ' ' || line.charAt(0) == '\t') {
                throw new Refusal(400, "obsolete header line folding is not accepted");
            }
            if (colon <= 0 || line.charAt(colon - 1) == ' ' || line.charAt(colon - 1) == '\t') {
                throw new Refusal(400, "malformed header line \"" + printable(line) + "\"");
            }
            String name = line.substring(0, colon).toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).strip();
            headers.merge(name, value, (a, b) -> a + ", " + b);
        }
        return headers;
    }

    private long contentLength(String value) {
        long length = -1;
        for (String part : value.split(",")) { // a repeated Content-Length is fine only if every copy agrees
            long one;
            try {
                one = Long.parseLong(part.strip());
            } catch (NumberFormatException e) {
                one = -1;
            }
            if (one < 0 || (length >= 0 && one != length)) {
                throw new Refusal(400, "invalid Content-Length \"" + printable(value) + "\"");
            }
            length = one;
        }
        return length;
    }

    /**
     * A body of the declared {@code length} (already checked against the limit). Its array grows as the bytes arrive,
     * doubling from at most {@link #FIRST_BODY_BUFFER}: a client that announces 64 MiB and sends nothing holds a few
     * KiB, not 64 MiB, and memory is only ever spent on bytes a client actually sent.
     */
    private byte[] readBody(int length) throws IOException {
        byte[] body = new byte[Math.min(length, FIRST_BODY_BUFFER)];
        int size = 0;
        while (size < length) {
            if (size == body.length) {
                body = java.util.Arrays.copyOf(body, (int) Math.min(length, 2L * body.length));
            }
            int n = Math.min(body.length, length) - size;
            readFully(body, size, n);
            size += n;
        }
        return body;
    }

    /** A chunked body, or null when it grows past the limit (the rest stays unread). */
    private byte[] readChunked() throws IOException {
        byte[] body = new byte[8192];
        int size = 0;
        while (true) {
            String line = readLine(false);
            int semicolon = line.indexOf(';'); // chunk extensions are ignored
            String hex = (semicolon < 0 ? line : line.substring(0, semicolon)).strip();
            long chunk;
            try {
                chunk = hex.isEmpty() || hex.length() > 15 ? -1 : Long.parseLong(hex, 16);
            } catch (NumberFormatException e) {
                chunk = -1;
            }
            if (chunk < 0) {
                throw new Refusal(400, "malformed chunk size \"" + printable(line) + "\"");
            }
            if (chunk == 0) {
                while (!readLine(false).isEmpty()) {
                    // trailer fields are read and ignored
                }
                return java.util.Arrays.copyOf(body, size);
            }
            if (size + chunk > maxBodyBytes) {
                return null;
            }
            if (size + chunk > body.length) {
                body = java.util.Arrays.copyOf(body, (int) Math.min(maxBodyBytes, Math.max(size + chunk, 2L * body.length)));
            }
            readFully(body, size, (int) chunk);
            size += (int) chunk;
            if (!readLine(false).isEmpty()) {
                throw new Refusal(400, "chunk data longer than its size");
            }
        }
    }

    /**
     * A line without its CRLF (a bare LF is accepted), as ISO-8859-1. Null at a clean end of stream before the first
     * byte when {@code endAllowed}.
     */
    private String readLine(boolean endAllowed) throws IOException {
        int scanned = pos;
        while (true) {
            for (int i = scanned; i < limit; i++) {
                if (buf[i] == '\n') {
                    int end = i > pos && buf[i - 1] == '\r' ? i - 1 : i;
                    String line = new String(buf, pos, end - pos, StandardCharsets.ISO_8859_1);
                    pos = i + 1;
                    return line;
                }
            }
            int had = limit - pos;
            if (pos > 0) {
                System.arraycopy(buf, pos, buf, 0, had);
                pos = 0;
                limit = had;
            }
            if (limit == buf.length) {
                if (buf.length == MAX_LINE) {
                    throw new Refusal(431, "a request line or header is longer than " + MAX_LINE + " bytes");
                }
                buf = java.util.Arrays.copyOf(buf, MAX_LINE);
            }
            scanned = limit;
            int n = in.read(buf, limit, buf.length - limit);
            if (n < 0) {
                if (endAllowed && had == 0) {
                    return null;
                }
                throw new EOFException("connection closed in the middle of a request");
            }
            limit += n;
            phase.bytesArrived();
        }
    }

    private void readFully(byte[] dst, int off, int len) throws IOException {
        int buffered = Math.min(len, limit - pos);
        System.arraycopy(buf, pos, dst, off, buffered);
        pos += buffered;
        if (buffered < len && in.readNBytes(dst, off + buffered, len - buffered) != len - buffered) {
            throw new EOFException("connection closed in the middle of a request body");
        }
    }

    private void answer(Http1Response r, String method, boolean http11, boolean keepAlive) throws IOException {
        StringBuilder h = new StringBuilder(160)
                .append(http11 ? "HTTP/1.1 " : "HTTP/1.0 ").append(r.status()).append(' ').append(reason(r.status()))
                .append("\r\nContent-Type: ").append(r.contentType())
                .append("\r\nContent-Length: ").append(r.body().length).append("\r\n");
        r.headers().forEach((name, value) -> h.append(name).append(": ").append(value).append("\r\n"));
        if (!keepAlive) {
            h.append("Connection: close\r\n");
        } else if (!http11) {
            h.append("Connection: keep-alive\r\n");
        }
        byte[] head = h.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] body = method.equals("HEAD") ? new byte[0] : r.body();
        if (head.length + body.length <= ONE_WRITE) {
            byte[] all = java.util.Arrays.copyOf(head, head.length + body.length);
            System.arraycopy(body, 0, all, head.length, body.length);
            out.write(all);
        } else {
            out.write(head);
            out.write(body);
        }
        out.flush();
    }

    private void refuse(int status, String message) throws IOException {
        answer(Http1Response.text(status, message + "\n"), "", true, false);
        linger();
    }

    /**
     * A body over the limit, announced or found while reading chunks: the handler's answer, then a graceful close (the
     * rest of the body is never read). Returns false: the connection ends.
     */
    private boolean refuseTooLarge(String method, String path, Map<String, String> headers, boolean http11) throws IOException {
        answer(handler.bodyTooLarge(new Http1Request(method, path, headers, new byte[0], peer()), maxBodyBytes), method, http11, false);
        linger();
        return false;
    }

    /**
     * Ends a connection whose request was not read to its end: half-close (plain TCP) so the answer is delivered,
     * then read and drop what the client still sends, briefly, before closing. Closing at once with unread input
     * would reset the connection and the client might never see the answer.
     */
    private void linger() throws IOException {
        if (!(socket instanceof SSLSocket)) {
            socket.shutdownOutput();
        }
        socket.setSoTimeout(LINGER_MILLIS);
        long dropped = limit - pos;
        pos = limit = 0;
        try {
            for (int n; dropped < DRAIN_BYTES && (n = in.read(buf)) >= 0; ) {
                dropped += n;
            }
        } catch (IOException ignored) {
            // the client closed or stayed silent: either way the connection ends now
        }
    }

    /** The client's TLS certificate (the handshake is done once a request was read), or null. */
    private java.security.cert.X509Certificate peer() {
        if (!peerRead) {
            peerRead = true;
            peer = socket instanceof SSLSocket secure ? Http1Server.peer(secure) : null;
        }
        return peer;
    }

    private static String path(String target) {
        String path = target;
        if (target.startsWith("http://") || target.startsWith("https://")) { // absolute form
            int slash = target.indexOf('/', target.indexOf("//") + 2);
            path = slash < 0 ? "/" : target.substring(slash);
        } else if (!target.startsWith("/") && !target.equals("*")) {
            throw new Refusal(400, "malformed request target \"" + printable(target) + "\"");
        }
        int query = path.indexOf('?');
        return query < 0 ? path : path.substring(0, query);
    }

    private static boolean hasToken(String header, String token) {
        if (header == null) {
            return false;
        }
        for (String t : header.split(",")) {
            if (t.strip().equalsIgnoreCase(token)) {
                return true;
            }
        }
        return false;
    }

    /** At most 200 characters, control characters shown as '?': for messages that quote what the client sent. */
    private static String printable(String s) {
        StringBuilder b = new StringBuilder(Math.min(s.length(), 200));
        for (int i = 0; i < s.length() && i < 200; i++) {
            char c = s.charAt(i);
            b.append(c < 0x20 || c > 0x7e ? '?' : c);
        }
        return s.length() > 200 ? b.append("...").toString() : b.toString();
    }

    static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 400 -> "Bad Request";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 413 -> "Content Too Large";
            case 417 -> "Expectation Failed";
            case 431 -> "Request Header Fields Too Large";
            case 500 -> "Internal Server Error";
            case 501 -> "Not Implemented";
            case 503 -> "Service Unavailable";
            case 505 -> "HTTP Version Not Supported";
            default -> "Status " + status;
        };
    }

    /** A request this server will not serve; the connection ends after the answer. */
    private static final class Refusal extends RuntimeException {
        final int status;

        Refusal(int status, String message) {
            super(message, null, false, false);
            this.status = status;
        }
    }
}
