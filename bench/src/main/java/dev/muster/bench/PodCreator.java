package dev.muster.bench;

/** Creates pod {@code i} of a batch or a burst in namespace {@code ns} (the benchmark names it {@code p<i>}). */
interface PodCreator {
    void create(String ns, int i);
}
