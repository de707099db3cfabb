package dev.muster.demo.scenario;

import dev.muster.core.resources.ResourceNames;
import dev.muster.core.resources.Resources;
import java.util.random.RandomGenerator;

/** Per-pod requests a workload draws from: cpu (millicores), memory (bytes), GPUs ({@code nvidia.com/gpu}). Immutable. */
public record PodShape(Range cpu, Range memory, Range gpu) {
    public static final String GPU = "nvidia.com/gpu";

    public Resources draw(RandomGenerator random) {
        Resources.Builder b = Resources.builder().set(ResourceNames.CPU, cpu.draw(random)).set(ResourceNames.MEMORY, memory.draw(random));
        long g = gpu.draw(random);
        if (g > 0) {
            b.set(GPU, g);
        }
        return b.build();
    }
}
