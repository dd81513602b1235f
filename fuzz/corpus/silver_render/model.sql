{{ config(materialized='incremental', unique_key=['id']) }}
select * from {{ source('bronze', 't') }}
{% if is_incremental() -%}
where x > (select max(x) from {{ this }}){# c #}
{%- else %} {{ ref('t') }} {% endif %}
