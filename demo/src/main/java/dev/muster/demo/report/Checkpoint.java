package dev.muster.demo.report;

import dev.muster.core.resources.Resources;
import java.time.Duration;
import java.util.Map;

/**
 * The controller-written Queue status compared with the truth while simulated time stood still: each Queue's
 * {@code status.allocated} as written into the cluster, and the sum of the requests of its bound, unfinished pods.
 *
 * @param at        simulated time of the comparison
 * @param written   status.allocated per Queue (absent: never written)
 * @param truth     sum of bound pods' requests per Queue
 * @param matched   every Queue's written status equals its truth
 * @param converged how long (real) it took after scheduling went quiet for the status to match (or the time waited)
 */
public record Checkpoint(String label, long at, Map<String, Resources> written, Map<String, Resources> truth, boolean matched,
                         Duration converged) {}
