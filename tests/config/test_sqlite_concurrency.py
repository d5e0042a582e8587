"""The embedded SQLite survives parallel writers: no "database is locked" 500s."""

from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.servers import api_server, migrate, server_env


@pytest.mark.server
def test_ten_parallel_writers_on_sqlite(tmp_path):
    env = server_env(DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    migrate(env)
    # Two processes with threads: contention both inside and across processes.
    with api_server(env, workers=2, threads=5) as base:

        def write(n: int) -> int:
            response = requests.post(
                f"{base}/api/_probe/write", json={"email": f"w{n}@example.com"}, timeout=30
            )
            return response.status_code

        with ThreadPoolExecutor(max_workers=10) as pool:
            statuses = list(pool.map(write, range(60)))
    assert statuses == [200] * 60
