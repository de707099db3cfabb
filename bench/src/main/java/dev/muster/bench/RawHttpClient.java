package dev.muster.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A minimal keep-alive HTTP/1.1 client over one socket, writing each request in one segment with
 * TCP_NODELAY as Go's net/http (kube-scheduler's client) does. Only for the benchmark: it understands
 * Content-Length responses and nothing else. Not thread-safe.
 */
final class RawHttpClient implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final String host;

    RawHttpClient(String host, int port) throws IOException {
        socket = new Socket(host, port);
        socket.setTcpNoDelay(true);
        out = socket.getOutputStream();
        in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
        this.host = host + ":" + port;
    }

    /** POSTs {@code body} and returns the status code; the response body is read and discarded. */
    int post(String path, byte[] body) throws IOException {
        byte[] head = ("POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: Go-http-client/1.1\r\nContent-Length: "
                + body.length + "\r\nContent-Type: application/json\r\nAccept-Encoding: gzip\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] request = new byte[head.length + body.length];
        System.arraycopy(head, 0, request, 0, head.length);
        System.arraycopy(body, 0, request, head.length, body.length);
        out.write(request);
        out.flush();
        String status = line();
        int code = Integer.parseInt(status.substring(9, 12));
        long length = -1;
        for (String h = line(); !h.isEmpty(); h = line()) {
            if (h.regionMatches(true, 0, "content-length:", 0, 15)) {
                length = Long.parseLong(h.substring(15).trim());
            }
        }
        if (length < 0) {
            throw new IOException("response without Content-Length");
        }
        in.skipNBytes(length);
        return code;
    }

    private String line() throws IOException {
        StringBuilder sb = new StringBuilder(64);
        int c;
        while ((c = in.read()) != -1 && c != '\n') {
            if (c != '\r') {
                sb.append((char) c);
            }
        }
        if (c == -1) {
            throw new IOException("connection closed");
        }
        return sb.toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
