package dev.muster.server.sync;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.ApiException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ListWatchErrorsTest {
    private final AtomicLong now = new AtomicLong();
    private final List<String> logged = new ArrayList<>();
    private final ListWatchErrors errors = new ListWatchErrors(now::get, logged::add);

    @Test
    void aMissingCrdIsNamedAsSuch() {
        String line = errors.failed("podgroups.scheduling.volcano.sh", new ApiException(404, "Not Found"));
        assertThat(line).contains("podgroups.scheduling.volcano.sh", "404", "is the CRD installed?", "readiness");
    }

    @Test
    void forbiddenPointsAtRbac() {
        assertThat(errors.failed("pods", new ApiException(403, "Forbidden"))).contains("HTTP 403", "RBAC", "list and watch pods");
    }

    @Test
    void anHttpErrorIsOneLineWithItsCodeAndWhatTheServerSaid() {
        ApiException e = new ApiException("Message: Bad Request\nHTTP response code: 400", 400, Map.of(),
                "\"Connection\" header must be \"Upgrade\".\nmore");

        assertThat(errors.failed("nodes", e)).isEqualTo("listing/watching nodes failed: HTTP 400 \"Connection\" header must be \"Upgrade\".");
    }

    @Test
    void connectionFailuresShowTheCause() {
        assertThat(errors.failed("nodes", new ApiException(new ConnectException("Connection refused"))))
                .contains("nodes", "Connection refused");
    }

    @Test
    void theSameFailureIsLoggedOncePerMinuteWithACountOfRepeats() {
        IOException e = new IOException("reset");
        assertThat(errors.failed("pods", e)).isNotNull();
        for (int i = 0; i < 30; i++) {
            now.addAndGet(Duration.ofSeconds(1).toNanos());
            assertThat(errors.failed("pods", e)).isNull();
        }
        assertThat(errors.failed("nodes", e)).as("another resource is independent").isNotNull();
        assertThat(errors.failed("pods", new IOException("other"))).as("a new message is logged at once").isNotNull();
        now.addAndGet(ListWatchErrors.REPEAT.toNanos());
        assertThat(errors.failed("pods", new IOException("other"))).isNotNull();
    }

    @Test
    void whatIsReturnedIsWhatIsLogged() {
        String line = errors.failed("nodes", new IOException("reset"));

        assertThat(logged).containsExactly(line);
    }

    @Test
    void nothingIsLoggedOnceTheInformersAreStopping() {
        errors.stop();

        assertThat(errors.failed("nodes", new InterruptedIOException("interrupted"))).isNull();
        assertThat(logged).isEmpty();
    }

    @Test
    void repeatsAreCountedWhenLoggedAgain() {
        IOException e = new IOException("reset");
        errors.failed("pods", e);
        errors.failed("pods", e);
        errors.failed("pods", e);
        now.addAndGet(ListWatchErrors.REPEAT.toNanos());
        assertThat(errors.failed("pods", e)).contains("(2 repeats not logged)");
    }

    @Test
    void anApiServerThatStaysUnreachableIsReportedEveryMinuteForAsLongAsItLasts() {
        java.util.List<String> resources = java.util.List.of("nodes", "pods", "poddisruptionbudgets", "podgroups.scheduling.volcano.sh", "queues.scheduling.volcano.sh");
        ApiException refused = new ApiException(new ConnectException("Failed to connect to /127.0.0.1:6443"));
        for (int second = 0; second < 10 * 60; second++) { // ten minutes of the reflectors' retries, one a second each
            for (String r : resources) {
                errors.failed(r, refused);
            }
            now.addAndGet(Duration.ofSeconds(1).toNanos());
        }

        assertThat(logged).as("each resource once a minute, not five lines and then silence").hasSize(10 * resources.size());
        assertThat(logged.getLast()).contains("Failed to connect to /127.0.0.1:6443", "(59 repeats not logged)");
        assertThat(errors.latest()).as("what readiness quotes").contains("queues.scheduling.volcano.sh", "Failed to connect");
    }
}
