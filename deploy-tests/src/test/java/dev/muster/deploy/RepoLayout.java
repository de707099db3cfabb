package dev.muster.deploy;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the repository's deployable parts from wherever the tests run: Maven runs them in
 * {@code deploy-tests/}, an IDE may run them from the repository root. Walks up from the working
 * directory to the first directory holding {@code charts/muster/Chart.yaml}.
 */
final class RepoLayout {
    private final Path root;

    private RepoLayout(Path root) {
        this.root = root;
    }

    static RepoLayout find() {
        Path start = Path.of("").toAbsolutePath().normalize();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("charts/muster/Chart.yaml"))) {
                return new RepoLayout(dir);
            }
        }
        throw new IllegalStateException("no charts/muster/Chart.yaml in " + start + " or any parent directory");
    }

    Path root() {
        return root;
    }

    Path chart() {
        return root.resolve("charts/muster");
    }

    Path extenderConfig() {
        return root.resolve("extender-config");
    }
}
