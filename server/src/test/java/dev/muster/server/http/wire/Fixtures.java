package dev.muster.server.http.wire;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;

/** The kube-scheduler v1.36 captures copied into the test resources (see their README.md). */
final class Fixtures {
    static final String ROOT = "/fixtures/kube-scheduler-v1.36/";

    /** Every request body, by its path under {@link #ROOT}. */
    static final List<String> EXTENDER_ARGS_REQUESTS = List.of(
            "nodecache-true/filter-request.json", "nodecache-true/prioritize-request.json",
            "nodecache-false/filter-request.json", "nodecache-false/prioritize-request.json",
            "gang-annotated/filter-request.json", "gang-annotated/prioritize-request.json",
            "preempt/filter-request.json");
    static final List<String> BINDING_REQUESTS = List.of(
            "nodecache-true/bind-request.json", "nodecache-false/bind-request.json", "gang-annotated/bind-request.json");
    static final List<String> PREEMPTION_REQUESTS = List.of("preempt/preempt-request.json");

    private Fixtures() {}

    static byte[] bytes(String path) {
        try (InputStream in = Fixtures.class.getResourceAsStream(ROOT + path)) {
            if (in == null) {
                throw new IllegalStateException("no fixture " + path);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<String> allRequests() {
        return java.util.stream.Stream.of(EXTENDER_ARGS_REQUESTS, BINDING_REQUESTS, PREEMPTION_REQUESTS)
                .flatMap(List::stream).toList();
    }
}
