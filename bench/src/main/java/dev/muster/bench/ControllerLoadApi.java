package dev.muster.bench;

import dev.muster.controller.writer.StatusPatchException;
import dev.muster.controller.writer.StatusPatchException.Kind;
import dev.muster.controller.writer.StatusPatcher;
import dev.muster.controller.writer.WriterMetrics;
import dev.muster.core.status.DesiredStatus;
import dev.muster.core.status.StatusKey;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * {@link ControllerLoad}'s API server as the controller's writer meets it: {@link Patches} counts status patches and
 * fails a share of them, {@link Lag} records each write's lag from the writer's metrics.
 */
final class ControllerLoadApi {
    private ControllerLoadApi() {}

    /** The API server: counts patches and fails a share of them. Confined to the writer's (driver's) thread. */
    static final class Patches implements StatusPatcher {
        private static final Kind[] FAILURES = {Kind.CONFLICT, Kind.THROTTLED, Kind.SERVER_ERROR, Kind.TIMEOUT};
        private final SplittableRandom random;
        private final double failureRate;
        long patches;
        long failures;
        /** PodGroups alive that were written at least once (bounded by the PodGroups alive). */
        final Set<StatusKey> writtenAlive = new HashSet<>();
        long deletedUnwritten;
        long deleted;

        void deleted(StatusKey key) {
            deleted++;
            if (!writtenAlive.remove(key)) {
                deletedUnwritten++;
            }
        }

        Patches(long seed, double failureRate) {
            this.random = new SplittableRandom(seed);
            this.failureRate = failureRate;
        }

        @Override
        public void patch(StatusKey key, DesiredStatus desired, DesiredStatus previous) throws StatusPatchException {
            patches++;
            if (failureRate > 0 && random.nextDouble() < failureRate) {
                Kind kind = FAILURES[(int) (failures++ % FAILURES.length)];
                throw new StatusPatchException(kind, 0, "injected " + kind);
            }
            if (key instanceof StatusKey.PodGroup) {
                writtenAlive.add(key);
            }
        }
    }

    /** Write lag in 10 ms buckets up to an hour, per object kind. Confined to the driver's thread. */
    static final class Lag implements WriterMetrics {
        private static final long BUCKET = 10_000_000L;
        private final long[] queue = new long[360_001];
        private final long[] podGroup = new long[360_001];
        long queueWrites;
        long podGroupWrites;
        long skipped;
        long failed;

        @Override
        public void written(StatusKey key, long lagNanos) {
            int b = (int) Math.min(queue.length - 1, lagNanos / BUCKET);
            if (key instanceof StatusKey.Queue) {
                queue[b]++;
                queueWrites++;
            } else {
                podGroup[b]++;
                podGroupWrites++;
            }
        }

        @Override
        public void skipped(StatusKey key) {
            skipped++;
        }

        @Override
        public void failed(StatusKey key, Kind kind) {
            failed++;
        }

        @Override
        public void throttled() {}

        static double percentileSeconds(long[] h, long total, double p) {
            if (total == 0) {
                return 0;
            }
            long rank = (long) Math.ceil(p * total);
            long seen = 0;
            for (int i = 0; i < h.length; i++) {
                seen += h[i];
                if (seen >= rank) {
                    return (i + 1) * BUCKET / 1e9; // bucket upper bound
                }
            }
            return h.length * BUCKET / 1e9;
        }

        String summary(boolean queues) {
            long[] h = queues ? queue : podGroup;
            long n = queues ? queueWrites : podGroupWrites;
            return String.format(Locale.ROOT, "%.2f / %.2f / %.2f", percentileSeconds(h, n, 0.5), percentileSeconds(h, n, 0.99),
                    percentileSeconds(h, n, 1.0));
        }
    }
}
