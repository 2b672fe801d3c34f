"""Scale-out on Ray: batch items go through Ray Data to a pool of actors, one model set per
actor, and come back in input order to the driver, which alone writes the database.

Ray is the optional `scale` extra; nothing here imports it until a batch runs."""

from conflictdesk.scale.cluster import RayOptions, connect, ray_available, require_ray
from conflictdesk.scale.embed import RayEmbedder
from conflictdesk.scale.runner import Judgment, TaskResult, WorkerSetup, map_in_order

__all__ = [
    "Judgment",
    "RayEmbedder",
    "RayOptions",
    "TaskResult",
    "WorkerSetup",
    "connect",
    "map_in_order",
    "ray_available",
    "require_ray",
]
