"""Everything one emulator instance made on the Docker engine, found by its instance label and removed:
the same order and rules as server/sandbox/docker/instance-objects.ts (containers first, since they
hold the volumes and images; fork images newest first, since a fork of a fork sits on its source;
then volumes). The shared sandbox image carries no instance label and is kept.

Through the `docker` command line (what a CI machine with an engine has), else the Python `docker`
package when it is installed; with neither, the teardown says so instead of leaving sandboxes quietly."""

import shutil
import subprocess
import time

LABEL_INSTANCE = "dev.interactions-emulator.instance"
_TIMEOUT = 120


class CleanupError(RuntimeError):
    pass


def _label(instance):
    return f"label={LABEL_INSTANCE}={instance}"


def _docker(*argv):
    completed = subprocess.run(["docker", *argv], capture_output=True, text=True, timeout=_TIMEOUT)
    return completed.returncode, completed.stdout, completed.stderr


def _ids(*argv):
    status, out, err = _docker(*argv)
    if status != 0:
        raise CleanupError(f"`docker {' '.join(argv)}` failed: {err.strip() or out.strip()}")
    return [line for line in out.split() if line]


def count_instance_objects(instance):
    """{"containers": n, "volumes": n, "images": n} with the instance's label."""
    if shutil.which("docker") is None:
        return _count_with_package(instance)
    return {
        "containers": len(_ids("ps", "-aq", "--filter", _label(instance))),
        "volumes": len(_ids("volume", "ls", "-q", "--filter", _label(instance))),
        "images": len(_ids("images", "-q", "--filter", _label(instance))),
    }


def remove_instance_objects(instance):
    """Removes them; returns what was removed; raises CleanupError, after trying everything, naming what is left."""
    if shutil.which("docker") is None:
        return _remove_with_package(instance)
    removed = {"containers": 0, "volumes": 0, "images": 0}
    # A container the engine is already removing (the emulator's own delete) is looked for again.
    for attempt in range(20):
        containers = _ids("ps", "-aq", "--filter", _label(instance))
        if not containers:
            break
        if attempt:
            time.sleep(0.25)
        status, _, _ = _docker("rm", "-f", "-v", *containers)
        if status == 0:
            removed["containers"] += len(containers)
    for _ in range(3):
        # `docker images` lists newest first.
        images = list(dict.fromkeys(_ids("images", "-q", "--filter", _label(instance))))
        if not images:
            break
        for image in images:
            if _docker("rmi", "-f", image)[0] == 0:
                removed["images"] += 1
    for volume in _ids("volume", "ls", "-q", "--filter", _label(instance)):
        if _docker("volume", "rm", volume)[0] == 0:
            removed["volumes"] += 1
    left = count_instance_objects(instance)
    if any(left.values()):
        raise CleanupError(
            f"could not remove everything of emulator instance {instance}: {left} left; "
            f"see `docker ps -a --filter {_label(instance)}`"
        )
    return removed


def _client():
    try:
        import docker  # optional: only where the docker command line is missing
    except ImportError:
        raise CleanupError(
            "neither the `docker` command line nor the Python `docker` package is installed: "
            "the emulator's sandboxes cannot be removed; install one of them"
        ) from None
    return docker.from_env()


def _filters(instance):
    return {"label": f"{LABEL_INSTANCE}={instance}"}


def _count_with_package(instance):
    client = _client()
    filters = _filters(instance)
    return {
        "containers": len(client.containers.list(all=True, filters=filters)),
        "volumes": len(client.volumes.list(filters=filters)),
        "images": len(client.images.list(filters=filters)),
    }


def _remove_with_package(instance):
    client = _client()
    filters = _filters(instance)
    removed = {"containers": 0, "volumes": 0, "images": 0}
    for container in client.containers.list(all=True, filters=filters):
        try:
            container.remove(force=True, v=True)
            removed["containers"] += 1
        except Exception:  # gone meanwhile, or reported below as left
            pass
    for _ in range(3):
        images = sorted(client.images.list(filters=filters), key=lambda image: image.attrs.get("Created", ""), reverse=True)
        for image in images:
            try:
                client.images.remove(image.id, force=True)
                removed["images"] += 1
            except Exception:
                pass
    for volume in client.volumes.list(filters=filters):
        try:
            volume.remove()
            removed["volumes"] += 1
        except Exception:
            pass
    left = _count_with_package(instance)
    if any(left.values()):
        raise CleanupError(f"could not remove everything of emulator instance {instance}: {left} left")
    return removed
