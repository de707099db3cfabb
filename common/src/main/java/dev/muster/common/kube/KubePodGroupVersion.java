package dev.muster.common.kube;

import com.google.gson.JsonObject;

/**
 * One served version of Kubernetes' {@code scheduling.k8s.io} PodGroup and Workload, read as its Go types define it:
 * {@link KubeV1alpha2} (Kubernetes 1.36) or {@link KubeV1beta1} (1.37 on). The version served decides: the informers
 * list and watch at the version discovery found ({@link GangApiDiscovery}), and each object carries it in its
 * {@code apiVersion}. {@link KubernetesPodGroupConverter} turns what a version reads into the one gang model.
 * Implementations are stateless.
 */
abstract sealed class KubePodGroupVersion permits KubeV1alpha2, KubeV1beta1 {
    private final String version;
    private final String templateRefField;

    KubePodGroupVersion(String version, String templateRefField) {
        this.version = version;
        this.templateRefField = templateRefField;
    }

    /** The version, e.g. {@code v1beta1}. */
    final String version() {
        return version;
    }

    /** Where the template reference sits, for messages: {@code spec.podGroupTemplateRef} or {@code spec.workloadRef}. */
    final String templateRefField() {
        return templateRefField;
    }

    /** The Workload template the PodGroup was made from, or null when it names none. @throws ConversionException naming the field */
    abstract KubernetesPodGroupConverter.TemplateRef templateRef(String where, CrdFields spec);

    /** The scheduling fields of a PodGroup spec or Workload template. @throws ConversionException naming the field */
    abstract KubeGroupFields.Parts parts(String where, JsonObject object);

    /** Why Muster does not schedule this PodGroup as it stands (a field it does not support), or "". */
    abstract String unsupported(String where, CrdFields spec);

    /**
     * A reference object naming a Workload ({@code workloadName}) and one of its templates ({@code templateField}).
     * @throws ConversionException naming the field when either is missing
     */
    static KubernetesPodGroupConverter.TemplateRef reference(String where, JsonObject ref, String templateField) {
        CrdFields r = new CrdFields(where, ref);
        String name = r.string("workloadName");
        String template = r.string(templateField);
        if (name == null || name.isEmpty() || template == null || template.isEmpty()) {
            throw new ConversionException(where + ": workloadName and " + templateField + " are required");
        }
        return new KubernetesPodGroupConverter.TemplateRef(name, template);
    }

    /** The version of {@code apiVersion} ({@code scheduling.k8s.io/<version>}). @throws ConversionException for any other */
    static KubePodGroupVersion of(String where, String apiVersion) {
        String group = GangApiGroups.KUBERNETES_GROUP + "/";
        String version = apiVersion == null || !apiVersion.startsWith(group) ? null : apiVersion.substring(group.length());
        if (KubeV1beta1.VERSION.equals(version)) {
            return KubeV1beta1.INSTANCE;
        }
        if (KubeV1alpha2.VERSION.equals(version)) {
            return KubeV1alpha2.INSTANCE;
        }
        throw new ConversionException(where + ": apiVersion " + (apiVersion == null ? "missing" : "\"" + apiVersion + "\"")
                + ": Muster reads " + group + KubeV1beta1.VERSION + " and " + group + KubeV1alpha2.VERSION);
    }
}
