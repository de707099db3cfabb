/**
 * Checks of the deployable parts that are not Java: the Helm chart in {@code charts/muster} (rendered
 * and linted by the real Helm through helm-java), the kube-scheduler configurations and the gang
 * marker admission policy in {@code extender-config/}, the CRDs and the Dockerfiles, against each
 * other and against the extender's routes and defaults. Support classes: {@link dev.muster.deploy.Chart}
 * (Helm calls and rendered objects), {@link dev.muster.deploy.SchedulerConfigs} (KubeSchedulerConfiguration
 * fields and extender entries), {@link dev.muster.deploy.GangMarkerPolicy} (the MutatingAdmissionPolicy
 * and its binding),
 * {@link dev.muster.deploy.AllowedRbac} (the least-privilege table), {@link dev.muster.deploy.RepoLayout}
 * (finding the repository from the working directory).
 */
package dev.muster.deploy;
