package dev.muster.common.ops;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import javax.net.ssl.SSLContext;

/**
 * Creates the JDK HTTP servers Muster uses, with TCP_NODELAY on every accepted connection. Without it a
 * keep-alive client that writes headers and body separately meets Nagle's algorithm against delayed ACKs
 * and waits ~40 ms per request — measured here as prioritize p50 44 ms instead of under 1 ms.
 */
public final class HttpServers {
    static {
        // read once, when the JDK's server configuration class initialises: set before any server exists
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    private HttpServers() {}

    /** Plain HTTP, or HTTPS when {@code tls} is not null. */
    public static HttpServer create(InetSocketAddress address, SSLContext tls, int backlog) throws IOException {
        if (tls == null) {
            return HttpServer.create(address, backlog);
        }
        HttpsServer https = HttpsServer.create(address, backlog);
        https.setHttpsConfigurator(new HttpsConfigurator(tls));
        return https;
    }
}
