"""The presenter token is checked on every bearer-token request: its file is found once per state
directory (no path resolution or folder creation per request), and a rotation still counts at once."""

from __future__ import annotations

from cluster.auth import access, state


def test_the_token_file_is_found_once_and_a_rotation_is_seen_at_once(tmp_path, monkeypatch, settings):
    settings.KUBESIM_STATE_DIR = tmp_path / "state"
    first = access.presenter_token()
    looked_up = []
    real_state_dir = state.state_dir
    monkeypatch.setattr(state, "state_dir", lambda *args: looked_up.append(1) or real_state_dir(*args))
    assert access.presenter_token() == first
    assert looked_up == []  # no resolve() and mkdir() per request
    rotated = state.rotate(state.PRESENTER_TOKEN_FILE)
    assert rotated != first and access.presenter_token() == rotated
    settings.KUBESIM_STATE_DIR = tmp_path / "other"
    assert access.presenter_token() not in (first, rotated)  # another state directory, its own token
