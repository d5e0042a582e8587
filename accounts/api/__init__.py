"""accounts' HTTP layer: one module per resource (`auth`: sign-in, sessions, profile; `api_keys`;
`workspaces`, `members`, `invitations`), and `scoping`, the workspace a hub request acts in."""
