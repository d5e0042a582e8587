"""The adapters: each speaks one platform's API; `social.networks` declares the rest."""
