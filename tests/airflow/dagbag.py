"""Load a dags folder with real Airflow's DagBag and print what it holds as JSON (run in .venv-airflow).

    python tests/airflow/dagbag.py DAGS_DIR
prints {"import_errors": {...}, "dags": {dag_id: {"schedule": ..., "tasks": {task_id: {...}}}}}.
"""
import json
import sys

from airflow.dag_processing.dagbag import DagBag


def main(folder):
    bag = DagBag(dag_folder=folder)
    out = {"import_errors": {k: str(v) for k, v in bag.import_errors.items()}, "dags": {}}
    for dag_id, dag in bag.dags.items():
        tasks = {}
        for t in dag.tasks:
            tasks[t.task_id] = {
                "downstream": sorted(t.downstream_task_ids),
                "pool": t.pool,
                "retries": t.retries,
                "exponential_backoff": bool(t.retry_exponential_backoff),
                "on_failure_callback": bool(t.on_failure_callback),
            }
        out["dags"][dag_id] = {"schedule": str(dag.schedule), "tasks": tasks,
                               "catchup": dag.catchup, "max_active_runs": dag.max_active_runs}
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
