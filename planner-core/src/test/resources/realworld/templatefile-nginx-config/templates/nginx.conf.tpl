upstream app {
%{ for u in upstreams ~}
  server ${u.host}:${u.port};
%{ endfor ~}
}

server {
  listen 80;
  server_name ${server_name};

  location / {
    proxy_pass http://app;
    proxy_set_header Host $host;
  }
}
