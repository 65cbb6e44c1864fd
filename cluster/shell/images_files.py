"""The files the official images add to their base: nginx's configuration and welcome page,
httpd's, redis's. Copied from the images as they ship."""

from __future__ import annotations

NGINX_CONF = """
user  nginx;
worker_processes  auto;

error_log  /var/log/nginx/error.log notice;
pid        /var/run/nginx.pid;


events {
    worker_connections  1024;
}


http {
    include       /etc/nginx/mime.types;
    default_type  application/octet-stream;

    log_format  main  '$remote_addr - $remote_user [$time_local] "$request" '
                      '$status $body_bytes_sent "$http_referer" '
                      '"$http_user_agent" "$http_x_forwarded_for"';

    access_log  /var/log/nginx/access.log  main;

    sendfile        on;
    #tcp_nopush     on;

    keepalive_timeout  65;

    #gzip  on;

    include /etc/nginx/conf.d/*.conf;
}
""".lstrip("\n")

NGINX_DEFAULT_CONF = r"""server {
    listen       80;
    listen  [::]:80;
    server_name  localhost;

    #access_log  /var/log/nginx/host.access.log  main;

    location / {
        root   /usr/share/nginx/html;
        index  index.html index.htm;
    }

    #error_page  404              /404.html;

    # redirect server error pages to the static page /50x.html
    #
    error_page   500 502 503 504  /50x.html;
    location = /50x.html {
        root   /usr/share/nginx/html;
    }

    # proxy the PHP scripts to Apache listening on 127.0.0.1:80
    #
    #location ~ \.php$ {
    #    proxy_pass   http://127.0.0.1;
    #}

    # pass the PHP scripts to FastCGI server listening on 127.0.0.1:9000
    #
    #location ~ \.php$ {
    #    root           html;
    #    fastcgi_pass   127.0.0.1:9000;
    #    fastcgi_index  index.php;
    #    fastcgi_param  SCRIPT_FILENAME  /scripts$fastcgi_script_name;
    #    include        fastcgi_params;
    #}

    # deny access to .htaccess files, if Apache's document root
    # concurs with nginx's one
    #
    #location ~ /\.ht {
    #    deny  all;
    #}
}

"""

NGINX_INDEX = """<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
<style>
html { color-scheme: light dark; }
body { width: 35em; margin: 0 auto;
font-family: Tahoma, Verdana, Arial, sans-serif; }
</style>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>If you see this page, the nginx web server is successfully installed and
working. Further configuration is required.</p>

<p>For online documentation and support please refer to
<a href="http://nginx.org/">nginx.org</a>.<br/>
Commercial support is available at
<a href="http://nginx.com/">nginx.com</a>.</p>

<p><em>Thank you for using nginx.</em></p>
</body>
</html>
"""

NGINX_50X = """<!DOCTYPE html>
<html>
<head>
<title>Error</title>
<style>
html { color-scheme: light dark; }
body { width: 35em; margin: 0 auto;
font-family: Tahoma, Verdana, Arial, sans-serif; }
</style>
</head>
<body>
<h1>An error occurred.</h1>
<p>Sorry, the page you are looking for is currently unavailable.<br/>
Please try again later.</p>
<p>If you are the system administrator of this resource then please check
the <a href="http://nginx.org/r/error_log">error log</a> for details.</p>
<p><em>Faithfully yours, nginx.</em></p>
</body>
</html>
"""

NGINX_ENTRYPOINT = """#!/bin/sh
# vim:sw=4:ts=4:et

set -e

entrypoint_log() {
    if [ -z "${NGINX_ENTRYPOINT_QUIET_LOGS:-}" ]; then
        echo "$@"
    fi
}

if [ "$1" = "nginx" ] || [ "$1" = "nginx-debug" ]; then
    if /usr/bin/find "/docker-entrypoint.d/" -mindepth 1 -maxdepth 1 -type f -print -quit 2>/dev/null \
        | read v; then
        entrypoint_log "$0: /docker-entrypoint.d/ is not empty, will attempt to perform configuration"

        entrypoint_log "$0: Looking for shell scripts in /docker-entrypoint.d/"
        find "/docker-entrypoint.d/" -follow -type f -print | sort -V | while read -r f; do
            case "$f" in
                *.envsh)
                    if [ -x "$f" ]; then
                        entrypoint_log "$0: Sourcing $f";
                        . "$f"
                    else
                        # warn on shell scripts without exec bit
                        entrypoint_log "$0: Ignoring $f, not executable";
                    fi
                    ;;
                *.sh)
                    if [ -x "$f" ]; then
                        entrypoint_log "$0: Launching $f";
                        "$f"
                    else
                        # warn on shell scripts without exec bit
                        entrypoint_log "$0: Ignoring $f, not executable";
                    fi
                    ;;
                *) entrypoint_log "$0: Ignoring $f";;
            esac
        done

        entrypoint_log "$0: Configuration complete; ready for start up"
    else
        entrypoint_log "$0: No files found in /docker-entrypoint.d/, skipping configuration"
    fi
fi

exec "$@"
"""

MIME_TYPES_HEAD = """
types {
    text/html                                        html htm shtml;
    text/css                                         css;
    text/xml                                         xml;
    image/gif                                        gif;
    image/jpeg                                       jpeg jpg;
    application/javascript                           js;
    application/atom+xml                             atom;
    application/rss+xml                              rss;

    text/plain                                       txt;
    image/png                                        png;
    image/svg+xml                                    svg svgz;
    application/json                                 json;
    application/pdf                                  pdf;
    application/zip                                  zip;
}
""".lstrip("\n")


def nginx_files(version: str, entrypoint: bool) -> dict[str, str]:
    files = {
        "/etc/nginx/nginx.conf": NGINX_CONF,
        "/etc/nginx/conf.d/default.conf": NGINX_DEFAULT_CONF,
        "/etc/nginx/mime.types": MIME_TYPES_HEAD,
        "/usr/share/nginx/html/index.html": NGINX_INDEX,
        "/usr/share/nginx/html/50x.html": NGINX_50X,
        "/var/cache/nginx/": "",
        "/var/run/nginx.pid": "1\n",
    }
    if entrypoint:
        scripts = "/docker-entrypoint.d/"
        files |= {
            "/docker-entrypoint.sh": NGINX_ENTRYPOINT,
            scripts + "10-listen-on-ipv6-by-default.sh": "#!/bin/sh\n# vim:sw=4:ts=4:et\n\nset -e\n",
            scripts + "15-local-resolvers.envsh": "#!/bin/sh\n# vim:sw=2:ts=2:sts=2:et\n\nset -eu\n",
            scripts + "20-envsubst-on-templates.sh": "#!/bin/sh\n\nset -e\n",
            scripts + "30-tune-worker-processes.sh": "#!/bin/sh\n# vim:sw=2:ts=2:sts=2:et\n\nset -eu\n",
        }
    return files


# The logs go to the container's output (what `kubectl logs` shows), as the image links them.
NGINX_LINKS = {"/var/log/nginx/access.log": "/dev/stdout", "/var/log/nginx/error.log": "/dev/stderr"}

HTTPD_INDEX = "<html><body><h1>It works!</h1></body></html>\n"

HTTPD_CONF = """#
# This is the main Apache HTTP server configuration file.  It contains the
# configuration directives that give the server its instructions.
# See <URL:http://httpd.apache.org/docs/2.4/> for detailed information.
#
ServerRoot "/usr/local/apache2"

Listen 80

LoadModule mpm_event_module modules/mod_mpm_event.so
LoadModule authz_core_module modules/mod_authz_core.so
LoadModule mime_module modules/mod_mime.so
LoadModule log_config_module modules/mod_log_config.so
LoadModule unixd_module modules/mod_unixd.so
LoadModule dir_module modules/mod_dir.so

<IfModule unixd_module>
User www-data
Group www-data
</IfModule>

ServerAdmin you@example.com

DocumentRoot "/usr/local/apache2/htdocs"
<Directory "/usr/local/apache2/htdocs">
    Options Indexes FollowSymLinks
    AllowOverride None
    Require all granted
</Directory>

<IfModule dir_module>
    DirectoryIndex index.html
</IfModule>

ErrorLog /proc/self/fd/2
LogLevel warn
CustomLog /proc/self/fd/1 common
"""


def httpd_files() -> dict[str, str]:
    return {
        "/usr/local/apache2/htdocs/index.html": HTTPD_INDEX,
        "/usr/local/apache2/conf/httpd.conf": HTTPD_CONF,
        "/usr/local/apache2/logs/": "",
        "/usr/local/apache2/modules/": "",
    }


def redis_files() -> dict[str, str]:
    return {"/data/": "", "/usr/local/bin/docker-entrypoint.sh": "#!/bin/sh\nset -e\n"}
