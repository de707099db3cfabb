package dev.muster.e2e;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/** Loopback HTTP(S) for readiness probes and raw requests in tests; trusts any certificate (loopback only). */
public final class Http {
    private static final HttpClient CLIENT = HttpClient.newBuilder().sslContext(trustAll())
            .connectTimeout(Duration.ofSeconds(2)).build();

    private Http() {}

    public record Answer(int status, String body) {}

    /** GET; status -1 when nothing answered. */
    public static Answer get(String url, String bearerToken) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).GET();
        if (bearerToken != null) {
            b.header("Authorization", "Bearer " + bearerToken);
        }
        return send(b.build());
    }

    public static Answer post(String url, String contentType, byte[] body) {
        return send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build());
    }

    public static Answer patch(String url, String bearerToken, String contentType, String body) {
        return send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).header("Content-Type", contentType)
                .header("Authorization", "Bearer " + bearerToken).method("PATCH", HttpRequest.BodyPublishers.ofString(body)).build());
    }

    /** An answer with its headers. */
    public record Exchange(int status, String body, java.net.http.HttpHeaders headers) {
        public String header(String name) {
            return headers.firstValue(name).orElse(null);
        }
    }

    /** {@code method} with a JSON body (null: none) and a bearer token; throws when nothing answered. */
    public static Exchange exchange(String method, String url, String bearerToken, String jsonBody) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + bearerToken)
                .method(method, jsonBody == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(jsonBody));
        if (jsonBody != null) {
            b.header("Content-Type", "application/json");
        }
        try {
            HttpResponse<String> resp = CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Exchange(resp.statusCode(), resp.body(), resp.headers());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(method + " " + url, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public static boolean ok(String url, String bearerToken) {
        Answer a = get(url, bearerToken);
        return a.status() == 200 && a.body().trim().equals("ok");
    }

    private static Answer send(HttpRequest r) {
        try {
            HttpResponse<String> resp = CLIENT.send(r, HttpResponse.BodyHandlers.ofString());
            return new Answer(resp.statusCode(), resp.body());
        } catch (java.io.IOException e) {
            return new Answer(-1, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(-1, e.toString());
        }
    }

    private static SSLContext trustAll() {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, new TrustManager[] {new X509TrustManager() {
                @Override
                public void checkClientTrusted(X509Certificate[] chain, String authType) {}

                @Override
                public void checkServerTrusted(X509Certificate[] chain, String authType) {}

                @Override
                public X509Certificate[] getAcceptedIssuers() {
                    return new X509Certificate[0];
                }
            }}, new SecureRandom());
            return ctx;
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
