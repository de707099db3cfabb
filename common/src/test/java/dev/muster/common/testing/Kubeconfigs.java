package dev.muster.common.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Kubeconfig files for tests. Stateless. */
public final class Kubeconfigs {
    private Kubeconfigs() {}

    /** A valid kubeconfig whose one cluster is {@code http://127.0.0.1:1}, where nothing answers: clients build, calls fail. */
    public static Path pointingNowhere(Path dir) throws IOException {
        return Files.writeString(dir.resolve("kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]
                users: [{name: u, user: {token: t}}]
                contexts: [{name: c, context: {cluster: c, user: u}}]
                current-context: c
                """);
    }
}
