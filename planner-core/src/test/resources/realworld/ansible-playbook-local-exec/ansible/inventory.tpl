[web]
%{ for h in hosts ~}
${h} ansible_user=${user}
%{ endfor ~}
